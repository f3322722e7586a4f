// Running a shell command line and reading what it prints (posix_spawn, never Foundation's Process).
import CurlfireTestSupport
import Foundation

/// Runs shell command lines for the playgrounds.
public enum Shell {
    /// Runs `command` with `/bin/sh -c` and waits for it.
    ///
    /// - Returns: its exit status and standard output (standard error is discarded); status 127
    ///            with the reason as output when it cannot be started.
    public static func run(_ command: String) -> (status: Int32, output: String) {
        do {
            let result = try Subprocess.run(["/bin/sh", "-c", command])
            return (result.status, result.text)
        } catch {
            return (127, "\(error)")
        }
    }
}
