import Foundation
import FoundationNetworking

/// Delivers chunks to a closure on a queue; a chunk is consumed when the closure returns.
/// Its validators run on the queue before the first chunk; a failure drops every chunk and ends
/// the stream with the validation error.
///
/// `@unchecked Sendable`: `lock` guards `pending`; every other stored property is set once in `init`
/// (the weak `buffer` too, and the runtime reads a weak reference atomically).
final class ClosureStreamConsumer: StreamConsumer, @unchecked Sendable {
    private let queue: DispatchQueue
    private weak var buffer: StreamBuffer?
    private let cancel: @Sendable () -> Void
    private let closure: @Sendable (StreamRequest.Stream) -> Void
    private let validation: StreamValidation
    private let lock = Lock.make()
    private var pending = 0

    init(queue: DispatchQueue, buffer: StreamBuffer, cancel: @escaping @Sendable () -> Void,
         validation: StreamValidation, closure: @escaping @Sendable (StreamRequest.Stream) -> Void) {
        self.queue = queue
        self.buffer = buffer
        self.cancel = cancel
        self.validation = validation
        self.closure = closure
    }

    var pendingBytes: Int { lock.withLock { pending } }

    func enqueue(_ chunk: Data) {
        lock.withLock { pending += chunk.count }
        queue.async { [self] in
            if validation.check(buffer?.response) == nil {
                closure(StreamRequest.Stream(event: .stream(chunk), cancel: cancel))
            }
            lock.withLock { pending -= chunk.count }
            buffer?.consumerDidConsume()
        }
    }

    func finish(_ completion: StreamRequest.Completion) {
        queue.async { [self] in
            closure(StreamRequest.Stream(event: .complete(validation.finished(completion)), cancel: cancel))
        }
    }
}

/// Holds chunks for an async iterator; a chunk is consumed when `next()` returns it.
/// `@unchecked Sendable`: the chunks, counts, completion and waiting continuations are touched only
/// under `lock`; continuations are resumed after it is released. `buffer` and `validation` are set once.
final class AsyncStreamConsumer: StreamConsumer, @unchecked Sendable {
    private weak var buffer: StreamBuffer?
    private let validation: StreamValidation
    private let lock = Lock.make()
    private var chunks: [Data] = []
    private var head = 0
    private var pending = 0
    private var completion: StreamRequest.Completion?
    private var waiter: CheckedContinuation<Void, Never>?
    private var completionWaiters: [CheckedContinuation<StreamRequest.Completion, Never>] = []

    init(buffer: StreamBuffer, validation: StreamValidation) {
        self.buffer = buffer
        self.validation = validation
    }

    var pendingBytes: Int { lock.withLock { pending } }
    var isFinished: Bool { lock.withLock { completion != nil } }

    func enqueue(_ chunk: Data) {
        lock.lock()
        chunks.append(chunk)
        pending += chunk.count
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume()
    }

    func finish(_ completion: StreamRequest.Completion) {
        lock.lock()
        self.completion = completion
        let waiting = waiter
        waiter = nil
        let completionWaiting = completionWaiters
        completionWaiters.removeAll()
        lock.unlock()
        waiting?.resume()
        if !completionWaiting.isEmpty {
            let validated = validation.finished(completion)
            completionWaiting.forEach { $0.resume(returning: validated) }
        }
    }

    private enum Take {
        case chunk(Data)
        case end(StreamRequest.Completion)
        case wait
    }

    /// Takes the next chunk or the end, without waiting.
    private func take() -> Take {
        lock.lock()
        defer { lock.unlock() }
        if head < chunks.count {
            let chunk = chunks[head]
            head += 1
            if head > 64, head * 2 > chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            pending -= chunk.count
            return .chunk(chunk)
        }
        if let completion { return .end(completion) }
        return .wait
    }

    /// Parks `continuation` until a chunk or the end arrives (resumes it at once if one has).
    private func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if head < chunks.count || completion != nil {
            lock.unlock()
            continuation.resume()
        } else {
            waiter = continuation
            lock.unlock()
        }
    }

    /// The next chunk; `nil` at the end; throws the transfer's error after the last chunk.
    func next() async throws -> Data? {
        while true {
            switch take() {
            case let .chunk(chunk):
                buffer?.consumerDidConsume()
                // A failed validation ends the stream before its first chunk.
                if let error = validation.check(buffer?.response) { throw error }
                return chunk
            case let .end(completion):
                if let error = validation.finished(completion).error { throw error }
                return nil
            case .wait:
                await withCheckedContinuation { park($0) }
            }
        }
    }

    private func parkForCompletion(_ continuation: CheckedContinuation<StreamRequest.Completion, Never>) {
        lock.lock()
        if let completion {
            lock.unlock()
            continuation.resume(returning: validation.finished(completion))
        } else {
            completionWaiters.append(continuation)
            lock.unlock()
        }
    }

    /// The completion, once the transfer is over.
    var finalCompletion: StreamRequest.Completion {
        get async { await withCheckedContinuation { parkForCompletion($0) } }
    }
}

/// The chunks of a ``StreamRequest`` as an `AsyncSequence` (from ``StreamRequest/streamingData()``).
///
/// Iterate it once. It ends when the transfer ends and throws the transfer's error
/// (``CurlfireError``) after the last chunk. Cancelling the iterating task cancels the transfer;
/// so does abandoning the iteration before its end.
public struct DataStream: AsyncSequence, Sendable {
    /// Chunks of the body.
    public typealias Element = Data

    private let consumer: AsyncStreamConsumer
    private let transfer: Transfer

    init(consumer: AsyncStreamConsumer, transfer: Transfer) {
        self.consumer = consumer
        self.transfer = transfer
    }

    /// The completion (response, Timeline, metrics, error), once the transfer is over.
    public var completion: StreamRequest.Completion {
        get async { await consumer.finalCompletion }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(guardian: IterationGuardian(consumer: consumer, transfer: transfer))
    }

    /// Iterates the chunks.
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let guardian: IterationGuardian

        /// Cancels the transfer (a typed stream that stops at a line it cannot decode).
        func cancelTransfer() { guardian.transfer.cancel() }

        /// The next chunk, `nil` at the end; throws the transfer's error.
        public mutating func next() async throws -> Data? {
            let guardian = guardian
            return try await withTaskCancellationHandler {
                try await guardian.consumer.next()
            } onCancel: {
                guardian.transfer.cancel()
            }
        }
    }
}

/// Cancels the transfer when an iteration is abandoned before the stream ended.
final class IterationGuardian: Sendable {
    let consumer: AsyncStreamConsumer
    let transfer: Transfer

    init(consumer: AsyncStreamConsumer, transfer: Transfer) {
        self.consumer = consumer
        self.transfer = transfer
    }

    deinit {
        if !consumer.isFinished { transfer.cancel() }
    }
}
