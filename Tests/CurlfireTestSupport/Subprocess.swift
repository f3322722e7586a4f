// Test support shared by both test targets: run a command and collect its output with
// posix_spawn and waitpid.
//
// Foundation's `Process.waitUntilExit()` can hang on Linux when the test process has other
// children (seen here with the test servers running), so every test that waits for a command
// uses this instead.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished command produced.
public struct SubprocessResult: Sendable {
    /// The exit status (128 + signal number when a signal ended it).
    public let status: Int32
    /// Standard output (and standard error when merged).
    public let output: Data
    /// The output as UTF-8 text.
    public var text: String { String(decoding: output, as: UTF8.self) }
}

/// A failure to start a command.
public struct SubprocessError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Runs commands for tests.
public enum Subprocess {
    /// Where a command's standard error goes.
    public enum ErrorOutput: Sendable {
        case discard
        case mergeWithOutput
        case file(String)
    }

    /// Runs `arguments` (the first looked up on PATH) and waits for it.
    ///
    /// - Parameters:
    ///   - arguments:        The command and its arguments.
    ///   - input:            Written to its standard input (then closed); `/dev/null` when `nil`.
    ///   - errorOutput:      Where standard error goes. Discarded by default.
    ///   - currentDirectory: Its working directory; this process's when `nil`.
    public static func run(_ arguments: [String], input: Data? = nil, errorOutput: ErrorOutput = .discard,
                           currentDirectory: String? = nil) throws -> SubprocessResult {
        var outputPipe: [Int32] = [0, 0]
        var inputPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0, input == nil || pipe(&inputPipe) == 0 else {
            throw SubprocessError(description: "pipe failed")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, inputPipe[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        switch errorOutput {
        case .discard: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        case .mergeWithOutput: posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)
        case let .file(path): posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addclose(&actions, outputPipe[0])
        // posix_spawn_file_actions_addchdir_np is not visible from Swift's Glibc module: change
        // directory through the shell instead.
        let arguments = currentDirectory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0] + arguments } ?? arguments
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(outputPipe[1])
        if input != nil { close(inputPipe[0]) }
        guard spawned == 0 else {
            close(outputPipe[0])
            if input != nil { close(inputPipe[1]) }
            throw SubprocessError(description: "cannot run \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        if let input {
            // Small inputs only (tests): written before reading, then closed.
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(inputPipe[1], bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(inputPipe[1])
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(outputPipe[0], &buffer, buffer.count)
            if count > 0 {
                output.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(outputPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return SubprocessResult(status: exitCode, output: output)
    }
}
