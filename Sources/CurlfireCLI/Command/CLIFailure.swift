#if CLI
import CurlfireCLIKit

/// A failure that ends the command: printed as one `curlfire: error: …` line, then the process exits
/// with ``status``.
struct CLIFailure: Error, CustomStringConvertible {
    /// The exit status.
    let status: ExitStatus
    /// What went wrong, one line; `nil` when it was already reported.
    let message: String?

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    private init(status: ExitStatus) {
        self.status = status
        message = nil
    }

    /// A failure whose explanation was already printed.
    static func quiet(_ status: ExitStatus) -> CLIFailure { CLIFailure(status: status) }

    var description: String { message ?? "exit status \(status.rawValue)" }
}
#endif
