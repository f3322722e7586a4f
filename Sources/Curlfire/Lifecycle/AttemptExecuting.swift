import Foundation

/// What a ``Transfer`` needs from whatever runs its attempts: the seam between a request's
/// bookkeeping and libcurl.
///
/// ``Engine`` is the one conformer in the library (a thread driving a curl multi handle). Unit tests
/// (`@testable import`) build a ``SessionManager`` with a fake executor through the internal
/// `init(…, executor:)`: it records the commands and ends each attempt itself, calling
/// `attempt.transfer.attemptDidFinish(_:)` — the engine's own completion path — with an
/// ``AttemptResult`` it made without libcurl. Retries, redirects, resume plans, the cache hooks,
/// cancellation and handler order then run exactly as in production, with no network.
///
/// A session holds its executor as one stored existential, set when it is created: a call through
/// it is a witness-table call and allocates nothing.
protocol AttemptExecuting: AnyObject, Sendable {
    /// Hands a command over. Thread-safe and never blocks on the executor; called under no lock.
    ///
    /// - Returns: `false` once the executor has shut down: an `.add` attempt is then the caller's
    ///   to end (with ``AttemptEnding/sessionDeinitialized``), and no other command has an effect.
    @discardableResult
    func enqueue(_ command: Engine.Command) -> Bool

    /// Whether the caller runs where the executor ends attempts (the engine thread, or a thread that
    /// drives the engine inline meanwhile). Open code — a trust policy manager — is never called there.
    var isCurrentThread: Bool { get }

    /// An attempt to hand over with `.add`: the engine takes it from its pool of ended attempts
    /// (Engine/AttemptPool.swift); another executor makes a new one. `plan` is moved into it.
    func makeAttempt(transfer: Transfer, plan: consuming AttemptPlan, body: UploadBody, sink: ResponseSink?,
                     startTime: TimeInterval, stage: RequestStateMachine.Stage) -> CurlAttempt

    /// Stops the executor: attempts still in it end with ``AttemptEnding/sessionDeinitialized``.
    /// Returns once it has stopped; called once, when its session goes away.
    func shutdown()

    /// Gives `outcome` to a response handler's `run` on `queue`, later and never inline. `serial`
    /// says `queue` is known to be serial: the engine then hands every handler it releases for
    /// that queue in one loop turn over as one block (DeliveryBatch.swift). Called under no lock.
    func deliver(_ outcome: TransferOutcome, to run: @escaping @Sendable (TransferOutcome) -> Void,
                 on queue: DispatchQueue, serial: Bool)

    /// Runs the prebuilt handler `job` on `queue`, later and never inline; batched like
    /// ``deliver(_:to:on:serial:)`` when `serial`.
    func deliver(job: @escaping @Sendable () -> Void, on queue: DispatchQueue, serial: Bool)

    /// Resumes a task awaiting an outcome that is stored: the engine batches the tasks one loop turn
    /// releases (DeliveryBatch.swift). Called under no lock.
    func resume(_ continuation: UnsafeContinuation<Void, Never>)
}

extension AttemptExecuting {
    /// A new attempt each time (an executor without a pool: the fake engine of unit tests).
    func makeAttempt(transfer: Transfer, plan: consuming AttemptPlan, body: UploadBody, sink: ResponseSink?,
                     startTime: TimeInterval, stage: RequestStateMachine.Stage) -> CurlAttempt {
        CurlAttempt(transfer: transfer, plan: consume plan, body: body, sink: sink, startTime: startTime, stage: stage)
    }

    /// One block per handler (an executor that does not batch: the fake engine of unit tests).
    func deliver(_ outcome: TransferOutcome, to run: @escaping @Sendable (TransferOutcome) -> Void,
                 on queue: DispatchQueue, serial: Bool) {
        queue.async { run(outcome) }
    }

    /// One block per handler (an executor that does not batch: the fake engine of unit tests).
    func deliver(job: @escaping @Sendable () -> Void, on queue: DispatchQueue, serial: Bool) {
        queue.async(execute: job)
    }

    /// At once (an executor that does not batch: the fake engine of unit tests).
    func resume(_ continuation: UnsafeContinuation<Void, Never>) {
        continuation.resume()
    }
}

extension Engine: AttemptExecuting {}
