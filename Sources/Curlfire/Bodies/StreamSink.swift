import Foundation

/// A sink that can ask the attempt to pause once it has accepted a chunk (back-pressure).
protocol BackPressureSink: ResponseSink {
    /// Whether the chunk just written filled the buffer: the attempt then pauses (its next write
    /// callback returns `CURL_WRITEFUNC_PAUSE`) until a consumer catches up and unpauses it.
    func shouldPauseAfterWrite() -> Bool
}

/// The sink of a stream request's attempt: hands each chunk to the stream's consumers (engine thread).
/// parity: it also hands the response head to the buffer before the first chunk, for `validate()`.
final class StreamSink: BackPressureSink, ResponseHeadObserver {
    private let buffer: StreamBuffer
    private var written: Int64 = 0
    private var pauseRequested = false

    init(buffer: StreamBuffer) { self.buffer = buffer }

    var byteCount: Int64 { written }

    func prepare(expectedLength: Int64?) {}

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        written += Int64(bytes.count)
        pauseRequested = buffer.deliver(Data(bytes))
        return true
    }

    func shouldPauseAfterWrite() -> Bool { pauseRequested }

    // parity: the head, kept for the consumers' validators (StreamRequest+Validation.swift).
    func responseHeadDidComplete(_ head: ResponseHead) { buffer.headDidComplete(head) }

    var bytesBeforeBody: Int64 { 0 }
}

/// A consumer of a stream's chunks: a closure on a queue, or an async iterator.
protocol StreamConsumer: AnyObject, Sendable {
    /// Takes a chunk (engine thread: must not block or call user code).
    func enqueue(_ chunk: Data)
    /// Bytes handed over but not yet consumed (read under the buffer's lock by the buffer).
    var pendingBytes: Int { get }
}

/// What a stream request's consumers share with its sink: the bytes each has not consumed yet,
/// and whether the transfer is paused for them.
///
/// The engine thread delivers; consumers report what they consumed from their own threads. When
/// any consumer holds more than `highWater` bytes the attempt pauses; when every consumer is down
/// to `highWater / 2` it is unpaused with the engine's `.unpause` command (unless the user
/// suspended the request). `@unchecked Sendable`: its queues and counters are only touched under its lock.
final class StreamBuffer: @unchecked Sendable {
    let highWater: Int
    private let lock = Lock.make()
    private var consumers: [any StreamConsumer] = []
    private var pausedForConsumers = false
    /// The transfer to unpause (weak: the transfer's definition holds this buffer).
    weak var transfer: Transfer?

    init(highWater: Int) { self.highWater = max(highWater, 1) }

    func add(_ consumer: any StreamConsumer) { lock.withLock { consumers.append(consumer) } }

    /// parity: the latest response head (engine thread), made into an `HTTPURLResponse` only when a
    /// consumer's validators read ``response``.
    private var head: LazyResponse?

    /// parity: keeps a completed response head (engine thread: cheap, nothing is built here).
    func headDidComplete(_ head: ResponseHead) {
        guard let url = transfer?.request?.url else { return }
        let lazy = LazyResponse(head: head, url: url)
        lock.withLock { self.head = lazy }
    }

    /// parity: the response whose body is streaming, once its head is complete.
    var response: HTTPURLResponse? { lock.withLock { head }?.response }

    /// Hands a chunk to every consumer; returns whether the attempt should pause.
    func deliver(_ chunk: Data) -> Bool {
        let current = lock.withLock { consumers }
        for consumer in current { consumer.enqueue(chunk) }
        return lock.withLock {
            let full = consumers.contains { $0.pendingBytes > highWater }
            if full { pausedForConsumers = true }
            return full
        }
    }

    /// A consumer caught up a little; unpauses the transfer when every consumer is low enough.
    func consumerDidConsume() {
        let unpause = lock.withLock { () -> Bool in
            guard pausedForConsumers, consumers.allSatisfy({ $0.pendingBytes <= highWater / 2 }) else { return false }
            pausedForConsumers = false
            return true
        }
        if unpause { transfer?.unpauseForStreamConsumers() }
    }
}
