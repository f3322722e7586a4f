import Foundation

/// A request body produced while it is sent: a bounded buffer between a producer and libcurl's
/// read callback. One-shot: it cannot be replayed (a retry or a 307/308 that needs the body again
/// fails with ``CurlfireError/BodyStreamFailureReason/notReplayable``).
///
/// - The producer runs on its own thread (an `InputStream`, read with blocking calls) or in a
///   detached task (an `AsyncSequence`, which waits for space without blocking the cooperative
///   pool). It appends chunks and waits while `capacity` bytes are buffered.
/// - The engine thread drains it from libcurl's read callback (``read(into:capacity:)``). When the
///   buffer is empty the callback pauses the transfer (`CURL_READFUNC_PAUSE`); the producer's next
///   chunk (or its end) calls `wake`, which asks the engine to continue the transfer — only the
///   engine thread calls `curl_easy_pause`.
/// - ``cancel()`` (the attempt ended) drops what is buffered and stops the producer at its next
///   chunk; an `InputStream` is closed by its thread.
///
/// State is behind one lock ("lock, decide, unlock, act": waiters and `wake` run outside it).
final class BodyStream: @unchecked Sendable {
    /// What produces the bytes.
    ///
    /// `@unchecked Sendable`: an `InputStream` is not `Sendable`; it is read only by the one worker
    /// thread the stream starts for it, and closed by that thread.
    enum Producer: @unchecked Sendable {
        /// Read on a worker thread in fixed-size slices.
        case inputStream(InputStream)
        /// Iterated in a detached task; the closure feeds the stream and returns (or throws) at the end.
        case sequence(@Sendable (BodyStream) async throws -> Void)
    }

    /// What a read from the engine thread gives.
    enum ReadResult: Equatable {
        /// Bytes copied.
        case bytes(Int)
        /// The body is complete.
        case end
        /// Nothing buffered yet: pause until the producer wakes the transfer.
        case wait
        /// The producer failed, or the body cannot be sent.
        case failed(CurlfireError)

        static func == (lhs: ReadResult, rhs: ReadResult) -> Bool {
            switch (lhs, rhs) {
            case let (.bytes(a), .bytes(b)): return a == b
            case (.end, .end), (.wait, .wait), (.failed, .failed): return true
            default: return false
            }
        }
    }

    private struct State {
        var chunks: [Data] = []
        var head = 0
        var headOffset = 0
        var buffered = 0
        var produced: Int64 = 0
        var delivered: Int64 = 0
        var ended = false
        var failure: CurlfireError?
        var cancelled = false
        var started = false
        var readerWaiting = false
        var spaceWaiters: [@Sendable () -> Void] = []
        var wake: (@Sendable () -> Void)?
        var task: Task<Void, Never>?
    }

    /// The body's length when known (sent as `Content-Length`), else `nil` (chunked on HTTP/1.1).
    let length: Int64?
    /// The most bytes buffered before the producer waits.
    let capacity: Int
    /// The size of one read from an `InputStream`.
    static let readSize = 64 * 1024
    private let producer: Producer
    private let state = LockedValue(State())

    /// A stream fed by `producer`, holding at most about `capacity` bytes.
    init(producer: Producer, length: Int64?, capacity: Int = 1 << 20) {
        self.producer = producer
        self.length = length.flatMap { $0 >= 0 ? $0 : nil }
        self.capacity = max(capacity, 1)
    }

    /// Whether the producer has started (the body can then no longer be sent again).
    var isStarted: Bool { state.withLock { $0.started } }

    // MARK: - Engine side

    /// Starts the producer for the first attempt that sends the body; `wake` is called (from the
    /// producer's thread) when bytes arrive after a read found none. Returns
    /// ``CurlfireError/BodyStreamFailureReason/notReplayable`` when the body was already started.
    func begin(wake: @escaping @Sendable () -> Void) -> CurlfireError? {
        let first = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            state.wake = wake
            return true
        }
        guard first else { return .bodyStreamFailed(reason: .notReplayable) }
        switch producer {
        case .inputStream:
            // The stream is not Sendable: the thread reads it from `producer`, and it is its only user.
            let thread = Thread { [self] in
                if case let .inputStream(stream) = producer { Self.pump(stream, into: self) }
            }
            thread.name = "curlfire-body"
            thread.stackSize = 256 << 10
            thread.start()
        case let .sequence(feed):
            let task = Task.detached { [self] in
                do {
                    try await feed(self)
                    finish()
                } catch {
                    finish(failure: (error as? CurlfireError) ?? .bodyStreamFailed(reason: .producerFailed(error: error)))
                }
            }
            let cancelled = state.withLock { state -> Bool in
                state.task = task
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }
        return nil
    }

    /// Copies up to `capacity` buffered bytes into `buffer` (engine thread).
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> ReadResult {
        var waiters: [@Sendable () -> Void] = []
        let result = state.withLock { state -> ReadResult in
            if let failure = state.failure { return .failed(failure) }
            if state.cancelled { return .failed(.explicitlyCancelled) }
            var copied = 0
            while copied < capacity, state.head < state.chunks.count {
                let chunk = state.chunks[state.head]
                let count = min(capacity - copied, chunk.count - state.headOffset)
                chunk.withUnsafeBytes { bytes in
                    (buffer + copied).copyMemory(from: bytes.baseAddress! + state.headOffset, byteCount: count)
                }
                copied += count
                state.headOffset += count
                if state.headOffset == chunk.count {
                    state.head += 1
                    state.headOffset = 0
                }
            }
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head > 64 {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            if copied > 0 {
                state.buffered -= copied
                state.delivered += Int64(copied)
                if state.buffered < self.capacity {
                    waiters = state.spaceWaiters
                    state.spaceWaiters.removeAll()
                }
                return .bytes(copied)
            }
            guard state.ended else {
                state.readerWaiting = true
                return .wait
            }
            if let length, state.delivered != length {
                return .failed(.bodyStreamFailed(reason: .lengthMismatch(expected: length, produced: state.delivered)))
            }
            return .end
        }
        for waiter in waiters { waiter() }
        return result
    }

    /// Whether the body can go back to `position` (libcurl rewinds on a dead reused connection or
    /// for authentication): only to the start, and only before a byte was handed to libcurl.
    func canRewind(to position: Int64) -> Bool {
        state.withLock { $0.delivered == 0 && position == 0 }
    }

    /// Drops the buffer and stops the producer at its next chunk. Idempotent.
    func cancel() {
        let (waiters, task) = state.withLock { state -> ([@Sendable () -> Void], Task<Void, Never>?) in
            state.cancelled = true
            state.chunks.removeAll()
            state.head = 0
            state.headOffset = 0
            state.buffered = 0
            state.wake = nil
            defer { state.spaceWaiters.removeAll() }
            return (state.spaceWaiters, state.task)
        }
        for waiter in waiters { waiter() }
        task?.cancel()
    }

    // MARK: - Producer side

    /// Appends a chunk once fewer than `capacity` bytes are buffered, waiting without blocking a
    /// thread. Returns `false` when the body was cancelled: the producer stops.
    func append(_ chunk: Data) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !waitForSpace({ continuation.resume() }) { continuation.resume() }
        }
        return push(chunk)
    }

    /// Appends a chunk once fewer than `capacity` bytes are buffered, blocking the calling thread
    /// (a producer's own thread, never the engine's or the cooperative pool's). `false` when cancelled.
    func appendBlocking(_ chunk: Data) -> Bool {
        let space = DispatchSemaphore(value: 0)
        if waitForSpace({ space.signal() }) { space.wait() }
        return push(chunk)
    }

    /// The producer is done; `failure` aborts the transfer with that error.
    func finish(failure: CurlfireError? = nil) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.ended, !state.cancelled else { return nil }
            state.ended = true
            if let failure {
                state.failure = failure
            } else if let length, state.produced != length {
                state.failure = .bodyStreamFailed(reason: .lengthMismatch(expected: length, produced: state.produced))
            }
            return Self.takeWake(&state)
        }
        wake?()
    }

    /// Registers `resume` to run when there is space (or the stream is cancelled); `false` when
    /// there is space now and `resume` will not be called.
    private func waitForSpace(_ resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.cancelled, state.buffered >= capacity else { return false }
            state.spaceWaiters.append(resume)
            return true
        }
    }

    private func push(_ chunk: Data) -> Bool {
        var accepted = true
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.cancelled, !state.ended else {
                accepted = false
                return nil
            }
            guard !chunk.isEmpty else { return nil }
            state.produced += Int64(chunk.count)
            if let length, state.produced > length {
                state.ended = true
                state.failure = .bodyStreamFailed(reason: .lengthMismatch(expected: length, produced: state.produced))
                accepted = false
                return Self.takeWake(&state)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return Self.takeWake(&state)
        }
        wake?()
        return accepted
    }

    /// The wake-up to call when a read is waiting for bytes (once per wait).
    private static func takeWake(_ state: inout State) -> (@Sendable () -> Void)? {
        guard state.readerWaiting else { return nil }
        state.readerWaiting = false
        return state.wake
    }

    /// Reads an `InputStream` on the calling (worker) thread into `body`, in fixed-size slices.
    /// `streamError` is read only once the status is `.error` (it traps elsewhere on Linux), and a
    /// negative read is a typed failure.
    private static func pump(_ stream: InputStream, into body: BodyStream) {
        if stream.streamStatus == .notOpen { stream.open() }
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: readSize)
        while true {
            switch stream.streamStatus {
            case .error:
                return body.finish(failure: .bodyStreamFailed(reason: .inputStreamReadFailed(error: streamError(stream))))
            case .closed, .notOpen:
                return body.finish(failure: .bodyStreamFailed(reason: .inputStreamReadFailed(
                    error: InputStreamFailure(status: "\(stream.streamStatus)", message: "the stream is not open"))))
            case .atEnd:
                return body.finish()
            default:
                break
            }
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: readSize) }
            if count < 0 {
                return body.finish(failure: .bodyStreamFailed(reason: .inputStreamReadFailed(error: streamError(stream))))
            }
            if count == 0 { return body.finish() }
            guard body.appendBlocking(Data(buffer[0..<count])) else { return }
        }
    }

    private static func streamError(_ stream: InputStream) -> Error {
        if stream.streamStatus == .error, let error = stream.streamError { return error }
        return InputStreamFailure(status: "\(stream.streamStatus)", message: "read returned a negative count")
    }
}

/// Why an `InputStream` request body could not be read, when the stream gave no error of its own.
public struct InputStreamFailure: Error, Sendable, CustomStringConvertible {
    /// The stream's `streamStatus` when it failed.
    public let status: String
    /// What went wrong.
    public let message: String

    /// "InputStream failed (status): message".
    public var description: String { "InputStream failed (\(status)): \(message)" }
}
