/// Finished ``CurlAttempt`` objects kept for the next attempts of the engine's session, so a request
/// does not allocate its attempt (issue 24: pool what every request allocates).
///
/// Ownership, which is what makes reuse safe: an attempt is the engine's from `.add` until the engine
/// ends it (`Engine.finish`), which hands its ``AttemptResult`` — a value that references no attempt —
/// to the transfer and then recycles it here, emptied by ``CurlAttempt/clear()`` on the engine thread:
/// no transfer, plan, sink, reader, handle or state of that request stays on it. Nothing else keeps a
/// reference it uses afterwards (libcurl's callbacks reach attempts only through handles in the multi
/// handle, and the engine removed its handle; the caller that made it does not touch it once it is
/// enqueued). ``take(transfer:plan:body:sink:startTime:stage:)`` fills a pooled one on the caller's
/// thread, exactly as a new one is initialised. Attempts the engine does not end itself (replayed
/// HTTP/2 streams, attempts refused before the engine took them, the ones of a shutting-down engine)
/// are not recycled.
///
/// `@unchecked Sendable`: `spares` is touched only under `lock`; an attempt in it is reachable from
/// nowhere else, and the lock hands it from the engine thread (``recycle(_:)``) to the taker.
final class AttemptPool: @unchecked Sendable {
    /// At most this many spares (the engine's easy-handle pool keeps as many handles).
    static let limit = 64

    private let lock = Lock.make()
    @exclusivity(unchecked) private var spares: [CurlAttempt] = []

    /// A pooled attempt made into the one described, or a new one when there is none.
    func take(transfer: Transfer, plan: consuming AttemptPlan, body: UploadBody, sink: ResponseSink?, startTime: TimeInterval,
              stage: RequestStateMachine.Stage) -> CurlAttempt {
        guard let spare = lock.withLock({ spares.popLast() }) else {
            return CurlAttempt(transfer: transfer, plan: consume plan, body: body, sink: sink, startTime: startTime, stage: stage)
        }
        spare.reuse(transfer: transfer, plan: consume plan, body: body, sink: sink, startTime: startTime, stage: stage)
        return spare
    }

    /// Empties an attempt the engine has ended and keeps it for ``take(transfer:plan:body:sink:startTime:stage:)``.
    /// Engine thread only, after the attempt's result went to its transfer.
    func recycle(_ attempt: CurlAttempt) {
        attempt.clear()
        lock.withLock {
            if spares.count < Self.limit { spares.append(attempt) }
        }
    }

    /// How many attempts wait to be reused (for tests).
    var spareCount: Int { lock.withLock { spares.count } }
}
