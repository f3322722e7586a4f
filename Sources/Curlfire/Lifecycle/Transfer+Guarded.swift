import Foundation

extension Transfer {
    /// Everything of a ``Transfer`` that changes after it was made, in one value that only
    /// ``Transfer/withLock(_:)`` reaches (its stored property is private to Transfer.swift, so no
    /// other file can touch a field without the lock): the request's lifecycle — the state machine,
    /// which holds every stage's data, the handlers and the outcome — and what the request values read
    /// or the engine reports beside it. Nothing here calls out: closures kept here run only after the
    /// lock is released (the handlers, the progress closures, the stream closure).
    ///
    /// A struct stored in the transfer, not an object of its own: the transfer's lock comes from
    /// ``LockPool/transfers``, so guarding the state with it costs no allocation.
    struct Guarded {
        /// The request's lifecycle (RequestStateMachine.swift).
        var machine: RequestStateMachine
        /// The latest progress of each direction (Transfer+Progress.swift).
        var downloadCounts = ProgressCounts()
        var uploadCounts = ProgressCounts()
        /// Whether `request.progress` was read: libcurl then reports progress even without a progress closure.
        var progressObserved = false
        /// Where `DataRequest.stream(closure:)` sends the body instead of keeping it.
        var dataStream: StreamTarget?
        /// The progress closures, dropped when the outcome is published.
        var downloadProgressHandlers: [ProgressHandler] = []
        var uploadProgressHandlers: [ProgressHandler] = []
        /// The request as the latest attempt sends it (adapted), or as built before the transfer started.
        var currentRequest: LazyRequest?
        /// The latest response (cache: a hit or a merged 304 sets it, Transfer+Cache.swift).
        var currentResponse: LazyResponse?
        /// parity: `Request.id`, made on first read.
        var identity: UUID?

        /// Whether any progress is asked for: a closure, or a read of `request.progress`.
        var reportsProgress: Bool {
            progressObserved || !downloadProgressHandlers.isEmpty || !uploadProgressHandlers.isEmpty
        }
    }

    /// Where `DataRequest.stream(closure:)` sends the body, and on which queue.
    struct StreamTarget {
        let queue: DispatchQueue
        let closure: @Sendable (Data) -> Void
    }
}
