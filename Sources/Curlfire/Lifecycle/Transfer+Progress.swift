import Foundation

// Progress of a transfer: the closures given to `downloadProgress` / `uploadProgress`, and the
// `Progress` snapshots of `request.progress`. Reports come from the engine thread.
extension Transfer {
    // MARK: - Progress (engine thread)

    func reportDownloadProgress(completed: Int64, total: Int64?) {
        let handlers = withLock { state in
            state.downloadCounts = ProgressCounts(completed: completed, total: total ?? -1)
            return state.downloadProgressHandlers
        }
        Self.report(handlers, completed: completed, total: total)
    }

    func reportUploadProgress(completed: Int64, total: Int64) {
        let handlers = withLock { state in
            state.uploadCounts = ProgressCounts(completed: completed, total: total)
            return state.uploadProgressHandlers
        }
        Self.report(handlers, completed: completed, total: total)
    }

    // MARK: - Progress objects (Alamofire 4's `request.progress`)

    /// The latest counts of one direction; `total` is -1 while unknown.
    struct ProgressCounts {
        var completed: Int64 = 0
        var total: Int64 = -1
    }

    /// The response body's progress so far as a new `Progress`: a snapshot, never changed
    /// afterwards (Foundation's `Progress` on Linux is neither thread-safe nor safe to reset, and
    /// the engine thread must not share one with the caller). Reading it makes the transfer report
    /// progress from then on.
    var downloadProgressSnapshot: Progress {
        Self.snapshot(withLock { state -> ProgressCounts in
            state.progressObserved = true
            return state.downloadCounts
        })
    }

    /// The request body's progress so far, as a new `Progress` (see ``downloadProgressSnapshot``).
    var uploadProgressSnapshot: Progress {
        Self.snapshot(withLock { state -> ProgressCounts in
            state.progressObserved = true
            return state.uploadCounts
        })
    }

    static func snapshot(_ counts: ProgressCounts) -> Progress {
        let progress = Progress(totalUnitCount: counts.total)
        progress.completedUnitCount = counts.completed
        return progress
    }

    /// A successful transfer always ends with a complete report in each direction: libcurl's last
    /// progress callback can come before the final bytes are counted.
    func reportFinalProgress(_ outcome: TransferOutcome) {
        let sent = outcome.uploadedBodyBytes
        if sent > 0 { reportUploadProgress(completed: sent, total: sent) }
        let received = outcome.receivedBodyBytes
        reportDownloadProgress(completed: received, total: received)
    }

    static func report(_ handlers: [ProgressHandler], completed: Int64, total: Int64?) {
        guard !handlers.isEmpty else { return }
        for handler in handlers {
            // A fresh Progress per report: Foundation's Progress on Linux traps when an existing
            // object's total is reset, which a restarted transfer would do.
            let closure = handler.closure
            handler.queue.async {
                let progress = Progress(totalUnitCount: total ?? -1)
                progress.completedUnitCount = completed
                closure(progress)
            }
        }
    }
}
