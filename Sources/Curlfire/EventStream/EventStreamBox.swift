import Foundation
import FoundationNetworking

/// What every copy of an ``EventStreamRequest`` shares: whether its events are being consumed,
/// whether it was cancelled, the connection in flight, the ended connections, and the wait before
/// a reconnection (which `cancel()` cuts short).
///
/// `@unchecked Sendable`: every stored property is read and written only under `lock`, and no
/// call leaves the lock held (a stream is cancelled and a waiter resumed after unlocking).
final class EventStreamBox: @unchecked Sendable {
    private let lock = NSLock()
    private var consumed = false
    private var cancelled = false
    private var current: StreamRequest?
    private var head: HTTPURLResponse?
    private var sentRequest: URLRequest?
    private var ended: [StreamRequest.Completion] = []
    private var sleeper: (id: Int, continuation: CheckedContinuation<Bool, Never>)?
    private var sleeps = 0

    /// Marks the events as consumed; `false` if they already were.
    func claim() -> Bool {
        lock.withLock {
            if consumed { return false }
            consumed = true
            return true
        }
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// The connection in flight's response head, else the last one's.
    var response: HTTPURLResponse? { lock.withLock { head } }

    /// The request of the connection in flight, else of the last one.
    var request: URLRequest? { lock.withLock { current?.request ?? sentRequest } }

    /// Every connection that ended, in order.
    var connections: [StreamRequest.Completion] { lock.withLock { ended } }

    /// Makes `stream` the connection in flight; cancels it at once when the request was cancelled.
    func begin(_ stream: StreamRequest) {
        let cancelNow = lock.withLock { () -> Bool in
            current = stream
            return cancelled
        }
        if cancelNow { stream.cancel() }
    }

    /// The connection in flight accepted its response head.
    func accept(_ response: HTTPURLResponse) { lock.withLock { head = response } }

    /// The connection in flight ended with `completion`.
    func end(_ completion: StreamRequest.Completion) {
        lock.withLock {
            ended.append(completion)
            if let response = completion.response { head = response }
            sentRequest = completion.request ?? current?.request
            current = nil
        }
    }

    /// Cancels the connection in flight and any wait for the next one; no connection follows.
    func cancel() {
        let (stream, waiter) = lock.withLock { () -> (StreamRequest?, CheckedContinuation<Bool, Never>?) in
            cancelled = true
            let waiter = sleeper?.continuation
            sleeper = nil
            return (current, waiter)
        }
        stream?.cancel()
        waiter?.resume(returning: false)
    }

    /// Waits `seconds`; `false` when cancelled meanwhile (``cancel()`` or the task's cancellation,
    /// which cancels the request: the task is its consumer).
    func wait(_ seconds: TimeInterval) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let id = lock.withLock { () -> Int? in
                    if cancelled { return nil }
                    sleeps += 1
                    sleeper = (sleeps, continuation)
                    return sleeps
                }
                guard let id else { return continuation.resume(returning: false) }
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { [self] in wake(id) }
            }
        } onCancel: {
            cancel()
        }
    }

    private func wake(_ id: Int) {
        let waiter = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard let sleeper, sleeper.id == id else { return nil }
            self.sleeper = nil
            return sleeper.continuation
        }
        waiter?.resume(returning: true)
    }
}
