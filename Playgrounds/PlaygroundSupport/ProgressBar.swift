// A progress bar on standard error: redrawn in place on a terminal, plain lines otherwise.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A progress bar for one transfer, drawn on standard error.
///
/// On a terminal the bar is redrawn in place (`\r`) at every report; when standard error is not a
/// terminal (a pipe, a CI log) one plain line is written each time another quarter is reached, so
/// logs stay short. Safe to call from any thread.
///
/// Progress reports are dispatched to their queue and may still be queued when the response has
/// already arrived: deliver them on ``queue`` and ``finish()`` waits for every one of them.
public final class ProgressBar: Sendable {
    /// A serial queue to deliver this bar's progress reports on (`downloadProgress(queue: bar.queue)`).
    public let queue: DispatchQueue

    private struct State {
        var lastQuarter = -1
        var firstCompleted: Int64?
        var finished = false
    }

    private let label: String
    private let start = Date()
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let state = Mutex(State())

    /// Creates a bar labelled `label` (a few words: "download", "upload").
    public init(_ label: String) {
        self.label = label
        queue = DispatchQueue(label: "progress bar \(label)")
    }

    /// Draws the bar for `completed` of `total` bytes (`total` ≤ 0 when unknown).
    public func update(completed: Int64, total: Int64) {
        let fraction = total > 0 ? min(1, Double(completed) / Double(total)) : 0
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            // A resumed transfer starts with the bytes it already had: the speed counts new bytes only.
            let base = state.firstCompleted ?? completed
            state.firstCompleted = base
            let line = render(completed: completed, total: total, fraction: fraction, new: completed - base)
            if isTerminal { return line }
            let quarter = Int(fraction * 4)
            guard quarter > state.lastQuarter else { return nil }
            state.lastQuarter = quarter
            return line
        }
        if let line { write(isTerminal ? "\r\(line)\u{1B}[K" : "\(line)\n") }
    }

    /// Draws the bar from a `Progress` report.
    public func update(_ progress: Progress) {
        update(completed: progress.completedUnitCount, total: progress.totalUnitCount)
    }

    /// Ends the bar once every report already sent to ``queue`` has been drawn: on a terminal,
    /// moves to the next line. Later updates are ignored. Never call it on ``queue``.
    public func finish() {
        queue.sync {}
        let wasRunning = state.withLock { state -> Bool in defer { state.finished = true }; return !state.finished }
        if wasRunning && isTerminal { write("\n") }
    }

    private func render(completed: Int64, total: Int64, fraction: Double, new: Int64) -> String {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "\u{2588}", count: filled) + String(repeating: "\u{2591}", count: width - filled)
        let elapsed = max(Date().timeIntervalSince(start), 1e-6)
        let amount = total > 0 ? "\(Format.bytes(completed)) / \(Format.bytes(total))" : Format.bytes(completed)
        return String(format: "   %@ %@ %3d%%  %@  %@", label, bar, Int(fraction * 100), amount,
                      Format.speed(bytes: new, seconds: elapsed))
    }

    private func write(_ text: String) {
        fflush(nil)  // what is already printed on standard output goes first
        FileHandle.standardError.write(Data(text.utf8))
    }
}
