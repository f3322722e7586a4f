#if CLI
// Test support for the CLI's integration tests: the local test servers (started the way
// TestServers does it, through scripts/test-servers.py with this process as owner) and the built
// `curlfire` binary run with posix_spawn, stdout and stderr captured separately.
import CurlfireTestSupport
import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The servers' description (`servers.json`), the fields these tests use.
struct CLIServers: Decodable, Sendable {
    let httpbin: String
    let https: [String: String]
    let nginx_http: String?
    /// nginx's Unix socket (the plain-HTTP server also listens there).
    let nginx_unix_socket: String?
    let pki: String
    let large_file_size: Int?
    let large_file_sha256: String?
    let logs: [String: String]
    /// The authenticating squid proxy, when started (``withSquid()``).
    let squid: Squid?

    /// squid's ports and its one user (scripts/test-servers.py --squid).
    struct Squid: Decodable, Sendable {
        let http_port: Int
        let https_port: Int
        let user: String
        let password: String
    }

    func pkiFile(_ name: String) -> String { pki + "/" + name }

    private static let cache = Mutex<Result<CLIServers, CLIHarnessError>?>(nil)
    private static let squidCache = Mutex<Result<CLIServers, CLIHarnessError>?>(nil)

    /// Starts (or reuses) the servers once per test process.
    static func shared() throws -> CLIServers {
        try cache.withLock { cached in
            if let cached { return try cached.get() }
            let result = Result { () throws(CLIHarnessError) in try start(extraArguments: []) }
            cached = result
            return try result.get()
        }
    }

    /// The same servers plus the authenticating squid proxy, started once per test process.
    static func withSquid() throws -> (CLIServers, Squid) {
        let servers = try squidCache.withLock { cached in
            if let cached { return try cached.get() }
            let result = Result { () throws(CLIHarnessError) in try start(extraArguments: ["--squid"]) }
            cached = result
            return try result.get()
        }
        guard let squid = servers.squid else { throw CLIHarnessError("servers.json names no squid proxy") }
        return (servers, squid)
    }

    private static func start(extraArguments: [String]) throws(CLIHarnessError) -> CLIServers {
        if let existing = ProcessInfo.processInfo.environment["CURLFIRE_TEST_SERVERS_JSON"], !existing.isEmpty {
            guard let data = FileManager.default.contents(atPath: existing) else {
                throw CLIHarnessError("CURLFIRE_TEST_SERVERS_JSON=\(existing) is not readable")
            }
            return try decode(data)
        }
        let root = CLIHarness.repositoryRoot
        let state = root + "/.testservers"
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let log = state + "/cli-start.stderr.log"
        let result: SubprocessResult
        do {
            result = try Subprocess.run(["python3", root + "/scripts/test-servers.py", "start", "--state-dir", state,
                                         "--parent-pid", String(getpid()), "--nginx"] + extraArguments,
                                        errorOutput: .file(log), currentDirectory: root)
        } catch {
            throw CLIHarnessError("cannot run scripts/test-servers.py: \(error)")
        }
        guard result.status == 0 else {
            let tail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(3000)) } ?? ""
            throw CLIHarnessError("scripts/test-servers.py start failed (\(result.status)); run `make deps`.\n\(tail)")
        }
        return try decode(result.output)
    }

    private static func decode(_ data: Data) throws(CLIHarnessError) -> CLIServers {
        do {
            return try JSONDecoder().decode(CLIServers.self, from: data)
        } catch {
            throw CLIHarnessError("servers.json did not decode: \(error)")
        }
    }
}

struct CLIHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One finished run of the binary.
struct CLIRun {
    let status: Int32
    let stdout: Data
    let stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }

    /// stdout parsed as a JSON object.
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: stdout) as? [String: Any]
        return try XCTUnwrap(object, "stdout is not a JSON object: \(text.prefix(500)) / stderr: \(stderr)", file: file, line: line)
    }
}

enum CLIHarness {
    /// This file is Tests/CurlfireCLITests/CLIHarness.swift.
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The built `curlfire`: next to the test bundle (`.build/<config>/`).
    static let binary: String? = {
        var candidates: [String] = []
        if let first = CommandLine.arguments.first {
            var directory = URL(fileURLWithPath: first).deletingLastPathComponent()
            // .build/debug/CurlfirePackageTests.xctest[/Contents/MacOS] → .build/debug
            while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
            candidates.append(directory.appendingPathComponent("curlfire").path)
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("curlfire").path)
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("curlfire").path)
        candidates.append(repositoryRoot + "/.build/debug/curlfire")
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `curlfire` with `arguments`; stdin is /dev/null, stdout is a pipe (not a terminal).
    static func run(_ arguments: [String], in directory: String? = nil) throws -> CLIRun {
        let binary = try XCTUnwrap(binary, "the curlfire binary was not found next to the test bundle")
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-cli-\(UUID().uuidString).err").path
        defer { unlink(errorFile) }
        let result = try Subprocess.run([binary] + arguments, errorOutput: .file(errorFile), currentDirectory: directory)
        let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        return CLIRun(status: result.status, stdout: result.output, stderr: stderr)
    }

    /// Runs another command (curl, sha256sum) and returns its stdout.
    static func tool(_ arguments: [String]) throws -> Data {
        let result = try Subprocess.run(arguments)
        guard result.status == 0 else { throw CLIHarnessError("\(arguments.joined(separator: " ")) exited \(result.status)") }
        return result.output
    }

    /// The lowercase hex SHA-256 of a file, from `sha256sum`.
    static func sha256(_ path: String) throws -> String {
        String(String(decoding: try tool(["sha256sum", path]), as: UTF8.self).prefix(64))
    }

    /// A fresh temporary directory, removed by the test case's teardown block.
    static func temporaryDirectory(_ testCase: XCTestCase) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// A loopback port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CLIHarnessError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw CLIHarnessError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
#endif
