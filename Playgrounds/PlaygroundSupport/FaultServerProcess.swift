// scripts/fault-server.py, started for one playground (or named by $CURLFIRE_FAULT_URL).
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
        let line = firstLine(of: ["python3", RepositoryPaths.script("fault-server.py").path,
                                  "--parent-pid", String(getpid())])
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int],
              let port = object["http"], let url = URL(string: "http://127.0.0.1:\(port)") else {
            Playground.fail("fault-server.py printed \"\(line)\" instead of its ports")
        }
        return url
    }

    /// Starts `arguments` in the background (standard input and error on /dev/null) and returns the
    /// first line it prints. The process keeps running; it must watch its parent and exit with it.
    private static func firstLine(of arguments: [String]) -> String {
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { Playground.fail("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, output[0])
        posix_spawn_file_actions_addclose(&actions, output[1])
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(output[1])
        defer { close(output[0]) }
        guard spawned == 0 else { Playground.fail("cannot run \(arguments[0]): \(String(cString: strerror(spawned)))") }
        // Stopped and reaped when the playground exits (nothing else here reaps orphans).
        started.withLock { $0 = pid }
        atexit { FaultServerProcess.stop() }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(output[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    /// Stops the server this process started, and reaps it.
    private static func stop() {
        guard let pid = started.withLock({ state -> pid_t? in defer { state = nil }; return state }) else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
