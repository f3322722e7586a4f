// Test support: the local test servers started by scripts/test-servers.py.
//
// Usage in a test (XCTest or Swift Testing):
//
//     let servers = try TestServers.shared()
//     let url = servers.httpbin.appendingPathComponent("get")
//     let valid = try servers.https("valid")               // https://localhost:PORT
//     let caFile = servers.pkiFile("root-ca.pem")
//     let lines = servers.accessLogLines("httpbin", containing: marker)   // waits briefly
//
// The first call starts (or reuses) every server — httpbin over HTTP, httpbin over HTTPS for each
// certificate variant, nginx — and blocks until they answer; later calls return the same value.
// The servers stop by themselves a few seconds after the test process exits.
// Set CURLFIRE_TEST_SERVERS_JSON=/path/servers.json to use servers that are already running.
//
// No dependency on the Curlfire library.

import CurlfireTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

struct TestServerError: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}

struct TestServerSet: Sendable {
    /// httpbin over plain HTTP: `http://127.0.0.1:PORT`.
    let httpbin: URL
    /// httpbin over HTTPS by certificate variant: valid, leafonly, expired, wronghost, selfsigned,
    /// otherkey, revoked, mtls, spoof (a self-signed leaf followed by the genuine intermediate and root).
    /// All are `https://localhost:PORT`.
    let https: [String: URL]
    /// nginx static files (small.txt, 1k.bin, large.bin; `/discard` swallows uploads):
    /// HTTP/1.1, and TLS 1.3 + HTTP/2 with the valid chain.
    let nginxHTTP: URL?
    let nginxHTTPS: URL?
    /// The path of the Unix socket the plain-HTTP nginx server also listens on.
    var nginxUnixSocket: String?
    /// nginx over TLS 1.2/1.3 stapling a fixed OCSP response signed by the intermediate: "good" (the valid
    /// leaf, status good) and "revoked" (the revoked leaf, status revoked). `nginxHTTPS` staples nothing.
    let nginxOCSP: [String: URL]
    /// Directory of scripts/make-test-pki.sh's output (root-ca.pem, client.p12, …).
    let pkiDirectory: URL
    /// The file nginx serves as /large.bin, its size and SHA-256 (lowercase hex).
    let largeFile: URL?
    let largeFileSize: Int?
    let largeFileSHA256: String?
    /// Access log per server: "httpbin", the variant names, "nginx", and "squid" when it runs.
    let logs: [String: URL]
    /// The authenticating squid proxy, when started (``TestServers/withSquid()``).
    var squid: SquidProxy?

    /// squid on 127.0.0.1 with Basic authentication: a plain-HTTP port and a TLS port (the test
    /// PKI's `localhost` leaf, sent without its intermediate).
    struct SquidProxy: Sendable, Decodable {
        let http_port: Int
        let https_port: Int
        let user: String
        let password: String
    }

    /// The HTTPS server for a certificate variant.
    func https(_ variant: String) throws -> URL {
        guard let url = https[variant] else {
            throw TestServerError("no HTTPS test server variant \"\(variant)\" (have: \(https.keys.sorted().joined(separator: ", ")))")
        }
        return url
    }

    /// A file of the test PKI, e.g. `pkiFile("root-ca.pem")`.
    func pkiFile(_ name: String) -> URL {
        pkiDirectory.appendingPathComponent(name)
    }

    /// Every line of a server's access log so far, without the launcher's readiness probes.
    /// gunicorn writes a line after the response is sent: use `accessLogLines(_:containing:)` to
    /// wait for a request that just completed.
    func accessLogLines(_ server: String) -> [String] {
        guard let url = logs[server], let data = FileManager.default.contents(atPath: url.path) else { return [] }
        return String(decoding: data, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map(String.init)
            .filter { !$0.contains(TestServers.readinessProbeMarker) && !$0.contains("/__ready") }
    }

    /// Lines of a server's access log containing `needle`, polling until at least one appears or
    /// `timeout` passes (then returns the empty array). Put a unique marker in each request's URL.
    func accessLogLines(_ server: String, containing needle: String, timeout: TimeInterval = 3) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = accessLogLines(server).filter { $0.contains(needle) }
            if !lines.isEmpty || Date() >= deadline { return lines }
            usleep(20_000)
        }
    }
}

enum TestServers {
    /// Query marker of the launcher's own start-up requests (filtered out of `accessLogLines`).
    static let readinessProbeMarker = "curlfire-readiness-probe"

    private static let cache = Mutex<Result<TestServerSet, TestServerError>?>(nil)
    private static let squidCache = Mutex<Result<TestServerSet, TestServerError>?>(nil)

    /// Starts the servers once per test process (thread-safe; concurrent callers wait for the
    /// first start). A failed start is remembered: every later call throws the same error.
    static func shared() throws -> TestServerSet {
        try cached(in: cache, extraArguments: [])
    }

    /// The same servers plus the authenticating squid proxy (`test-servers.py start --squid`),
    /// started once per test process by the first proxy test; `squid` is set.
    static func withSquid() throws -> TestServerSet {
        let set = try cached(in: squidCache, extraArguments: ["--squid"])
        guard set.squid != nil else { throw TestServerError("servers.json names no squid proxy") }
        return set
    }

    private static func cached(in cache: borrowing Mutex<Result<TestServerSet, TestServerError>?>,
                               extraArguments: [String]) throws -> TestServerSet {
        try cache.withLock { cached in
            if let cached { return try cached.get() }
            let result: Result<TestServerSet, TestServerError>
            do {
                result = .success(try start(extraArguments: extraArguments))
            } catch let error as TestServerError {
                result = .failure(error)
            } catch {
                result = .failure(TestServerError("\(error)"))
            }
            cached = result
            return try result.get()
        }
    }

    /// The repository root: this file is Tests/CurlfireIntegrationTests/Support/TestServers.swift.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // CurlfireIntegrationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    private static func start(extraArguments: [String]) throws -> TestServerSet {
        let environment = ProcessInfo.processInfo.environment
        if let existing = environment["CURLFIRE_TEST_SERVERS_JSON"], !existing.isEmpty {
            guard let data = FileManager.default.contents(atPath: existing) else {
                throw TestServerError("CURLFIRE_TEST_SERVERS_JSON=\(existing): file not readable")
            }
            return try decode(data)
        }

        let root = repositoryRoot
        let script = root.appendingPathComponent("scripts/test-servers.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw TestServerError("\(script.path) not found (repository root from #filePath: \(root.path))")
        }
        guard let python = findExecutable("python3", path: environment["PATH"]) else {
            throw TestServerError("python3 not found on PATH: install it and run `make deps`")
        }
        let stateDirectory = root.appendingPathComponent(".testservers")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        let stderrURL = stateDirectory.appendingPathComponent("start.stderr.log")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        // posix_spawn, not Foundation's Process: its waitUntilExit() can hang while other children exist.
        let result: SubprocessResult
        do {
            result = try Subprocess.run([python.path, script.path, "start", "--state-dir", stateDirectory.path,
                                         "--parent-pid", String(getpid()), "--nginx"] + extraArguments,
                                        errorOutput: .file(stderrURL.path), currentDirectory: root.path)
        } catch {
            throw TestServerError("could not run \(python.path): \(error). Run `make deps`.")
        }
        // The servers never inherit the output pipe, so EOF arrives when the launcher exits.
        let output = result.output
        guard result.status == 0 else {
            let log = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            let tail = log.split(separator: "\n").suffix(40).joined(separator: "\n")
            throw TestServerError("""
                scripts/test-servers.py start failed (status \(result.status)). \
                Run `make deps` (system packages, .venv with httpbin, test PKI) and retry.
                \(tail)
                """)
        }
        return try decode(output)
    }

    private struct ServersJSON: Decodable {
        let httpbin: String
        let https: [String: String]
        let nginx_http: String?
        let nginx_https: String?
        let nginx_unix_socket: String?
        let nginx_ocsp: [String: String]?
        let pki: String
        let logs: [String: String]
        let large_file: String?
        let large_file_size: Int?
        let large_file_sha256: String?
        let squid: TestServerSet.SquidProxy?
    }

    static func decode(_ data: Data) throws -> TestServerSet {
        let raw: ServersJSON
        do {
            raw = try JSONDecoder().decode(ServersJSON.self, from: data)
        } catch {
            let text = String(decoding: data.prefix(2000), as: UTF8.self)
            throw TestServerError("servers.json did not decode: \(error)\n\(text)")
        }
        func url(_ string: String) throws -> URL {
            guard let url = URL(string: string) else { throw TestServerError("bad URL in servers.json: \(string)") }
            return url
        }
        var set = TestServerSet(
            httpbin: try url(raw.httpbin),
            https: try raw.https.mapValues(url),
            nginxHTTP: try raw.nginx_http.map(url),
            nginxHTTPS: try raw.nginx_https.map(url),
            nginxOCSP: try (raw.nginx_ocsp ?? [:]).mapValues(url),
            pkiDirectory: URL(fileURLWithPath: raw.pki, isDirectory: true),
            largeFile: raw.large_file.map { URL(fileURLWithPath: $0) },
            largeFileSize: raw.large_file_size,
            largeFileSHA256: raw.large_file_sha256,
            logs: raw.logs.mapValues { URL(fileURLWithPath: $0) }
        )
        set.nginxUnixSocket = raw.nginx_unix_socket
        set.squid = raw.squid
        return set
    }

    private static func findExecutable(_ name: String, path: String?) -> URL? {
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for directory in directories where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
