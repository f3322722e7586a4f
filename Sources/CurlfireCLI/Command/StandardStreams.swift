#if CLI
import CurlfireCLIKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writing to stdout and stderr with `write(2)`: no buffering surprises, and a closed pipe or a full
/// disk becomes an error instead of a trap.
enum StandardStreams {
    /// Whether the descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The terminal width of stderr, 80 when unknown.
    static var stderrWidth: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// Writes every byte of `data` to `fd`.
    static func write(_ data: Data, to fd: Int32) throws(CLIFailure) {
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure {
            throw CLIFailure(.io, "cannot write to \(fd == STDOUT_FILENO ? "stdout" : "stderr"): \(String(cString: strerror(failure)))")
        }
    }

    /// Writes `text` to stdout.
    static func out(_ text: String) throws(CLIFailure) { try write(Data(text.utf8), to: STDOUT_FILENO) }

    /// Writes `text` to stderr, ignoring failures (nothing better can be done with them).
    static func err(_ text: String) { try? write(Data(text.utf8), to: STDERR_FILENO) }
}
#endif
