// Long-running helper processes (test servers) for tests, playgrounds and the soak: started with
// posix_spawn, their first line of output read, and reaped whenever they exit.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A helper process left running in the background, such as `scripts/fault-server.py`.
///
/// The process must watch its parent (`--parent-pid`) and exit with it: nothing stops it otherwise.
/// A thread waits for it, so it never lingers as a zombie (PID 1 here does not reap orphans).
public enum BackgroundProcess {
    /// A started process and the first line it printed.
    public struct Started: Sendable {
        /// Its process id.
        public let pid: pid_t
        /// Its first line of standard output, without the newline.
        public let firstLine: String
    }

    /// Why a process could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Starts `arguments` (looked up in `PATH`) with standard input and error on /dev/null, and
    /// returns once it has printed its first line.
    public static func start(_ arguments: [String]) throws -> Started {
        precondition(!arguments.isEmpty, "no program to start")
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw Failure(description: "pipe failed: errno \(errno)") }
        // Close-on-exec (pipe2 is not visible from Swift's Glibc module), so that a process another
        // thread spawns later never holds the write end; the child gets its copy through dup2.
        _ = fcntl(output[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(output[1], F_SETFD, FD_CLOEXEC)
        defer { close(output[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // A child inherits the spawning thread's signal mask, and Swift concurrency's and Dispatch's
        // threads block SIGTERM and SIGINT: without a reset, `kill(pid, SIGTERM)` from a test would
        // never stop the process (seen: openssl s_server and dumpcap left running after async tests).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(output[1])
        guard spawned == 0 else {
            throw Failure(description: "cannot run \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        let child = pid
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(output[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard !line.isEmpty else { throw Failure(description: "\(arguments[0]) exited before printing a line") }
        return Started(pid: child, firstLine: String(decoding: line, as: UTF8.self))
    }

    /// Starts `scripts/fault-server.py` at `script` for this process (`--parent-pid`), with
    /// `arguments` (for example `--cert`/`--key` for its HTTPS port), and returns its ports by
    /// name (`http`, and `https` when given a certificate) and its process id.
    public static func startFaultServer(script: URL, arguments: [String] = []) throws -> (pid: pid_t, ports: [String: Int]) {
        let started = try start(["python3", script.path] + arguments + ["--parent-pid", String(getpid())])
        guard let ports = try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int],
              ports["http"] != nil else {
            throw Failure(description: "fault-server.py printed \"\(started.firstLine)\" instead of its ports")
        }
        return (started.pid, ports)
    }
}
