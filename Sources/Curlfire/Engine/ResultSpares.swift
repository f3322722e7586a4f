import Foundation

/// The objects an attempt's result is made of — the response object, the metrics' box and the
/// outcome's box — allocated on the thread that starts the attempt and filled by the engine thread.
///
/// Why (docs/Performance.md, "nineteenth session"): with glibc's allocator each thread allocates from
/// an arena of its own, and a chunk freed by another thread goes back to the arena it came from,
/// under that arena's lock, once the freeing thread's small per-thread cache of its size is full.
/// Objects the engine thread allocated and a handler's thread freed kept that lock busy from both
/// sides, and every request's result had several: at 64 in flight both threads waited on it more
/// than once per request (`futex`), and with jemalloc preloaded instead the same binary used 5 µs
/// less CPU per request. Made here, the result's objects are allocated by the thread that made the
/// request, which in a closed loop is the thread that frees them, and the engine's arena is left to
/// the engine. An attempt that ends without a response keeps its spares for its next request
/// (attempts are pooled), so none is freed on the engine thread.
///
/// It lives in a ``CurlAttempt`` and is touched only by the attempt's owner of the moment: the thread
/// that takes the attempt from the pool, then the engine thread (CurlAttempt.swift says how ownership moves).
struct ResultSpares {
    private var response: LazyResponse?
    private var metrics: TransferMetrics?
    private var outcome: TransferOutcome?

    /// Makes what is missing. On the thread that starts the attempt.
    mutating func prepare() {
        if response == nil { response = LazyResponse() }
        if metrics == nil { metrics = TransferMetrics() }
        if outcome == nil { outcome = TransferOutcome.spare() }
    }

    /// The response object for `head` at `url`: the spare, filled, or a new one when there is none.
    mutating func takeResponse(head: ResponseHead, url: URL) -> LazyResponse {
        guard let spare = response.take() else { return LazyResponse(head: head, url: url) }
        spare.fill(head: head, url: url)
        return spare
    }

    /// The spare metrics (held alone, so setting a value writes into its box), or new ones.
    mutating func takeMetrics() -> TransferMetrics {
        metrics.take() ?? TransferMetrics()
    }

    /// The spare outcome, for the transfer to fill (``Transfer/attemptDidFinish(_:)``).
    mutating func takeOutcome() -> TransferOutcome? {
        outcome.take()
    }
}
