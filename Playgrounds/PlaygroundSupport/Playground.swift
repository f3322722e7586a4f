// What every playground does: sections, checks that count failures, and an exit status that says
// whether every check passed.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Sections, checks and the exit status of a playground.
///
/// Call ``begin(_:)`` first, ``check(_:_:)`` for every result the playground verifies, and
/// ``finish()`` last: it exits with status 0 when every check passed, 1 otherwise.
public enum Playground {
    private static let state = Mutex<(name: String, failures: [String], scratch: [URL])>(("Playground", [], []))

    /// Prints the playground's title.
    public static func begin(_ name: String) {
        state.withLock { $0.name = name }
        emit("\(name) \u{2014} Curlfire playground")
    }

    /// Prints a line and flushes it, so lines on standard output and the progress bars on standard
    /// error keep their order when both go to a pipe.
    public static func emit(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Removes `url` (a file or directory of this run) when the playground exits through
    /// ``finish()`` or ``fail(_:)``.
    public static func removeOnExit(_ url: URL) {
        state.withLock { $0.scratch.append(url) }
    }

    private static func removeScratch() {
        for url in state.withLock({ $0.scratch }) { try? FileManager.default.removeItem(at: url) }
    }

    /// Prints a section title.
    public static func section(_ title: String) {
        emit("\n\u{2501}\u{2501} \(title)")
    }

    /// Prints an indented line of information.
    public static func note(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { emit("   \(line)") }
    }

    /// Records and prints the outcome of a check: `✔ what` when `condition` holds, else `✘ what`.
    ///
    /// - Returns: `condition`, so a later step can depend on it.
    @discardableResult
    public static func check(_ condition: Bool, _ what: String) -> Bool {
        emit(condition ? "   \u{2714} \(what)" : "   \u{2718} \(what)")
        if !condition { state.withLock { $0.failures.append(what) } }
        return condition
    }

    /// Stops the playground at once with status 1 and a clear message (for a failure that makes the
    /// remaining steps meaningless).
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(state.withLock { $0.name }): \(message)\n".utf8))
        emit("\n\u{2718} \(message)")
        removeScratch()
        exit(1)
    }

    /// Prints a summary and exits: status 0 when every check passed, 1 otherwise.
    public static func finish() -> Never {
        removeScratch()
        let (name, failures) = state.withLock { ($0.name, $0.failures) }
        if failures.isEmpty {
            emit("\n\(name): every check passed.")
            exit(0)
        }
        emit("\n\(name): \(failures.count) check(s) failed:")
        for failure in failures { emit("   \u{2718} \(failure)") }
        exit(1)
    }
}
