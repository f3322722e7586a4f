import Foundation

/// The response handlers one turn of the engine loop released, grouped by the serial queue they
/// run on, so that each queue gets them as one dispatched block instead of one block each.
///
/// Only queues known to be serial are batched — the session's own callback queue (on Linux each
/// `DispatchQueue.main` is a new wrapper object, so the main queue cannot be recognised):
/// their handlers run one after another in dispatch order anyway, so one block running them in
/// that order changes nothing a handler can observe. A queue that may be concurrent is never
/// batched — there, handlers that today run side by side would run one after another, and one
/// that waits for another's result would hang. Engine-thread state: the engine fills it while it
/// ends attempts and hands it out (``flush(submit:)``, through its drains) before it next sleeps.
struct DeliveryBatch {
    /// One handler: a closure and the outcome it is given, or a prebuilt job that reads the
    /// published outcome itself (`Transfer.addQueuedHandler`, no closure made per hand-off).
    enum Item: Sendable {
        case run(@Sendable (TransferOutcome) -> Void, TransferOutcome)
        case job(@Sendable () -> Void)

        /// Runs the handler.
        func callAsFunction() {
            switch self {
            case let .run(run, outcome): run(outcome)
            case let .job(job): job()
            }
        }
    }

    /// Each queue with its handlers, in the order the queues first got one; handlers in the order
    /// they were released. The first handler has a slot of its own: a queue that gets one handler
    /// in a turn (every turn, for requests made one after another) allocates no array for it.
    private var groups: [(queue: DispatchQueue, first: Item, more: [Item])] = []

    /// Awaiting tasks whose outcome this turn handed over, in that order. Resumed together at the
    /// end of the turn: a burst of resumptions wakes Swift's executor once for many jobs, where one
    /// resumption each, spread over the turn, woke a thread for nearly every request.
    private var resumptions: [UnsafeContinuation<Void, Never>] = []

    /// Whether no handler and no awaiting task waits.
    var isEmpty: Bool { groups.isEmpty && resumptions.isEmpty }

    /// Queues `continuation` (an awaiting task whose outcome is stored) to be resumed at the end of the turn.
    mutating func add(resuming continuation: UnsafeContinuation<Void, Never>) {
        resumptions.append(continuation)
    }

    /// Queues `run` to be given `outcome` on `queue` (a serial queue) after the handlers queued
    /// for it before.
    mutating func add(_ run: @escaping @Sendable (TransferOutcome) -> Void, outcome: TransferOutcome,
                      on queue: DispatchQueue) {
        add(.run(run, outcome), on: queue)
    }

    /// Queues the prebuilt `job` to run on `queue` (a serial queue) after the handlers queued for it before.
    mutating func add(job: @escaping @Sendable () -> Void, on queue: DispatchQueue) {
        add(.job(job), on: queue)
    }

    private mutating func add(_ item: Item, on queue: DispatchQueue) {
        if let index = groups.firstIndex(where: { $0.queue === queue }) {
            groups[index].more.append(item)
        } else {
            groups.append((queue, item, []))
        }
    }

    /// Resumes the awaiting tasks, in order, then hands each queue its handlers as one block,
    /// queues in first-use order, then empties the batch.
    ///
    /// - Parameter dispatch: How a block reaches its queue; `async` unless a test records it.
    mutating func flush(dispatch: (DispatchQueue, @escaping @Sendable () -> Void) -> Void = { $0.async(execute: $1) }) {
        flush(submit: { queue, first, more in
            if more.isEmpty {
                // One block, as without batching; a prebuilt job is dispatched as it is.
                if case let .job(job) = first { dispatch(queue, job) } else { dispatch(queue) { first() } }
            } else {
                dispatch(queue) {
                    first()
                    for item in more { item() }
                }
            }
        })
    }

    /// Resumes the awaiting tasks, in order, then hands each queue its handlers through `submit` (the
    /// first and the rest, in release order), queues in first-use order, then empties the batch: the
    /// engine passes them to a ``SerialQueueDrain``, which dispatches a block made once instead of a
    /// new one per turn.
    mutating func flush(submit: (DispatchQueue, Item, [Item]) -> Void) {
        for continuation in resumptions { continuation.resume() }
        resumptions.removeAll(keepingCapacity: true)
        for (queue, first, more) in groups { submit(queue, first, more) }
        groups.removeAll(keepingCapacity: true)
    }
}

extension SessionManager {
    /// Whether `queue` is known to be serial: the callback queue the session made itself.
    func isKnownSerial(_ queue: DispatchQueue) -> Bool {
        ownsCallbackQueue && queue === callbackQueue
    }
}
