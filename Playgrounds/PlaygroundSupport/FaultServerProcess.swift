// scripts/fault-server.py, started for one playground (or named by $CURLFIRE_FAULT_URL).
import CurlfireTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The fault server (`scripts/fault-server.py`): misbehaving endpoints plus the stateful
/// `/flaky` and `/token-…` endpoints the Retry playground uses.
public enum FaultServerProcess {
    private static let started = Mutex<pid_t?>(nil)

    /// The fault server's HTTP base URL: `$CURLFIRE_FAULT_URL` when set, else a new server on a
    /// free loopback port, started with `--parent-pid` so it exits within half a second of this
    /// process. Stops the playground when it cannot start.
    public static func url() -> URL {
        if let value = ProcessInfo.processInfo.environment["CURLFIRE_FAULT_URL"], let url = URL(string: value) {
            return url
        }
        do {
            let (pid, ports) = try BackgroundProcess.startFaultServer(script: RepositoryPaths.script("fault-server.py"))
            started.withLock { $0 = pid }
            atexit { FaultServerProcess.stop() }
            guard let port = ports["http"], let url = URL(string: "http://127.0.0.1:\(port)") else {
                Playground.fail("fault-server.py gave no HTTP port")
            }
            return url
        } catch {
            Playground.fail("cannot start fault-server.py: \(error)")
        }
    }

    /// Stops the server this process started and waits for it, so that it is reaped before this
    /// process exits (BackgroundProcess's thread may get there first: then `waitpid` says ECHILD).
    private static func stop() {
        guard let pid = started.withLock({ state -> pid_t? in defer { state = nil }; return state }) else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
