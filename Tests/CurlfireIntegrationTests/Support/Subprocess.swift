// Test support: run a command and collect its output with posix_spawn and waitpid.
//
// Foundation's `Process.waitUntilExit()` can hang on Linux when the test process has other
// children (seen here with the test servers running), so tests that wait for a command use this.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct SubprocessResult: Sendable {
    let status: Int32
    let output: Data
    var text: String { String(decoding: output, as: UTF8.self) }
}

enum Subprocess {
    /// Runs `arguments` (looked up on PATH), stdin from /dev/null, stderr discarded, and waits.
    static func run(_ arguments: [String]) throws -> SubprocessResult {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestServerError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw TestServerError("cannot run \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count > 0 { output.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return SubprocessResult(status: exitCode, output: output)
    }
}
