#if CLI
import CurlfireCLIKit
import Foundation

/// Draws the download progress bar on stderr (at most ten times a second) and prints the summary.
/// `@unchecked Sendable`: its mutable drawing state is only touched on `queue`, where progress arrives.
final class ProgressReporter: @unchecked Sendable {
    /// The serial queue progress reports arrive on.
    let queue = DispatchQueue(label: "curlfire.progress")
    private let showBar: Bool
    private let offset: Int64
    private let formatter: ProgressBar
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drew = false

    /// - Parameters:
    ///   - showBar: whether to draw the bar (stderr is a terminal, or `--progress`).
    ///   - offset:  bytes already on disk before this transfer (`--continue`).
    init(showBar: Bool, offset: Int64) {
        self.showBar = showBar
        self.offset = offset
        formatter = ProgressBar(width: StandardStreams.stderrWidth)
    }

    /// Called on ``queue`` with the transfer's progress.
    func update(_ progress: Progress) {
        guard showBar else { return }
        let now = Date()
        let complete = progress.totalUnitCount > 0 && progress.completedUnitCount >= progress.totalUnitCount
        guard complete || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        drew = true
        let elapsed = now.timeIntervalSince(start)
        let received = offset + progress.completedUnitCount
        let total = progress.totalUnitCount > 0 ? offset + progress.totalUnitCount : nil
        let speed = elapsed > 0 ? Double(progress.completedUnitCount) / elapsed : 0
        StandardStreams.err("\r" + formatter.line(received: received, total: total, speed: speed, elapsed: elapsed) + "\u{1B}[K")
    }

    /// Ends the bar's line and prints the summary (always, terminal or not).
    ///
    /// - Parameters:
    ///   - received:    the file's final size.
    ///   - resumedFrom: the bytes kept from before (0 when the file was written from the start).
    ///   - destination: the file's path.
    func finish(received: Int64, resumedFrom: Int64, destination: String) {
        queue.sync {
            if drew { StandardStreams.err("\n") }
            StandardStreams.err(ProgressBar.summary(received: received, resumedFrom: resumedFrom,
                                                    elapsed: Date().timeIntervalSince(start), destination: destination) + "\n")
        }
    }

    /// Ends the bar's line without a summary (the download failed).
    func abandon() {
        queue.sync { if drew { StandardStreams.err("\n") } }
    }
}
#endif
