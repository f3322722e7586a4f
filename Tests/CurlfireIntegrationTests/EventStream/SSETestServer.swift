import Curlfire
import CurlfireTestSupport
import Foundation
import Synchronization
import XCTest

/// scripts/sse-test-server.py, started once per test process: sse-starlette under uvicorn
/// (HTTP/1.1) and under Hypercorn (HTTP/2 over TLS with the test PKI's leaf).
struct SSETestServer: Sendable {
    let http: Int
    let h2: Int
    let servers: TestServerSet

    private static let cache = Mutex<Result<SSETestServer, TestServerError>?>(nil)

    static func shared() throws -> SSETestServer {
        try cache.withLock { cached in
            if let cached { return try cached.get() }
            let result: Result<SSETestServer, TestServerError>
            do { result = .success(try start()) } catch {
                result = .failure(error as? TestServerError ?? TestServerError("\(error)"))
            }
            cached = result
            return try result.get()
        }
    }

    private static func start() throws -> SSETestServer {
        let servers = try Live.servers() // the PKI and the venv
        let root = TestServers.repositoryRoot
        let started = try BackgroundProcess.start([
            root.appendingPathComponent(".venv/bin/python").path,
            root.appendingPathComponent("scripts/sse-test-server.py").path,
            "--cert", servers.pkiFile("leaf-chain.pem").path, "--key", servers.pkiFile("leaf.key").path,
            "--parent-pid", String(getpid()),
        ])
        guard let ports = try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int],
              let http = ports["http"], let h2 = ports["h2"] else {
            throw TestServerError("sse-test-server.py printed \(started.firstLine) (is sse-starlette in the venv? make deps)")
        }
        return SSETestServer(http: http, h2: h2, servers: servers)
    }

    /// `http://127.0.0.1:PORT/path` on uvicorn.
    func http(_ path: String) -> String { "http://127.0.0.1:\(http)\(path)" }
    /// `https://localhost:PORT/path` on Hypercorn (HTTP/2 by ALPN).
    func h2(_ path: String) -> String { "https://localhost:\(h2)\(path)" }

    /// A session trusting the test PKI's root.
    func session() throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        return SessionManager(configuration: configuration)
    }
}
