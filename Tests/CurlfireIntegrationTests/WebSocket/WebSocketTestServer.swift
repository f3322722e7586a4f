import Curlfire
import CurlfireTestSupport
import Foundation
import Synchronization
import XCTest

/// scripts/ws-test-server.py, started once per test process: the `websockets` server (ws and wss,
/// subprotocols chat.v2/chat.v1, permessage-deflate) and the raw fault server. Each test tags its
/// fault-server URLs with a unique `id` query, so its lines of the shared log are its own.
struct WebSocketTestServer: Sendable {
    let ws: Int
    let wss: Int
    let wssMutualTLS: Int
    let fault: Int
    let log: URL
    let servers: TestServerSet

    private static let cache = Mutex<Result<WebSocketTestServer, TestServerError>?>(nil)

    static func shared() throws -> WebSocketTestServer {
        try cache.withLock { cached in
            if let cached { return try cached.get() }
            let result: Result<WebSocketTestServer, TestServerError>
            do { result = .success(try start()) } catch {
                result = .failure(error as? TestServerError ?? TestServerError("\(error)"))
            }
            cached = result
            return try result.get()
        }
    }

    private static func start() throws -> WebSocketTestServer {
        let servers = try Live.servers() // the PKI and the venv
        let root = TestServers.repositoryRoot
        let clientCA = FileManager.default.temporaryDirectory.appendingPathComponent("ws-client-ca-\(UUID().uuidString).pem")
        let bundle = try Data(contentsOf: servers.pkiFile("root-ca.pem")) + Data(contentsOf: servers.pkiFile("intermediate-ca.pem"))
        try bundle.write(to: clientCA)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("ws-test-\(UUID().uuidString).log")
        let started = try BackgroundProcess.start([
            root.appendingPathComponent(".venv/bin/python").path,
            root.appendingPathComponent("scripts/ws-test-server.py").path,
            "--log", log.path, "--cert", servers.pkiFile("leaf-chain.pem").path, "--key", servers.pkiFile("leaf.key").path,
            "--client-ca", clientCA.path,
            "--parent-pid", String(getpid()),
        ])
        guard let ports = try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int],
              let ws = ports["ws"], let wss = ports["wss"], let mutual = ports["wss-mtls"], let fault = ports["fault"] else {
            throw TestServerError("ws-test-server.py printed \(started.firstLine) (is websockets in the venv? make deps)")
        }
        return WebSocketTestServer(ws: ws, wss: wss, wssMutualTLS: mutual, fault: fault, log: log, servers: servers)
    }

    /// `ws://127.0.0.1:PORT/path` on the websockets server.
    func ws(_ path: String) -> String { "ws://127.0.0.1:\(ws)\(path)" }
    /// `wss://localhost:PORT/path` on the websockets server (the test PKI's leaf).
    func wss(_ path: String) -> String { "wss://localhost:\(wss)\(path)" }
    /// `ws://127.0.0.1:PORT/route?id=<unique>` on the fault server, and the id.
    func fault(_ route: String) -> (url: String, id: String) {
        let id = UUID().uuidString.prefix(8).lowercased()
        return ("ws://127.0.0.1:\(fault)\(route)\(route.contains("?") ? "&" : "?")id=\(id)", "id=\(id)")
    }

    /// The fault server's log lines for one connection (by its id).
    func lines(_ id: String) -> [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.contains(id) }
    }

    /// Polls the log until a line for `id` contains `needle`, or `timeout` passes.
    func waitForLine(_ id: String, containing needle: String, timeout: TimeInterval = 5) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = lines(id).first(where: { $0.contains(needle) }) { return line }
            usleep(20_000)
        } while Date() < deadline
        return nil
    }

    /// A session trusting the test PKI's root.
    func session(_ configure: (inout SessionConfiguration) -> Void = { _ in },
                 trust: ServerTrustPolicyManager? = nil) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        configuration.timeoutIntervalForRequest = 5
        configure(&configuration)
        return SessionManager(configuration: configuration, serverTrustPolicyManager: trust)
    }
}

/// Collects a request's messages until the sequence ends; returns them and the error it threw.
func collect(_ request: WebSocketRequest, limit: Int = .max) async -> (messages: [WebSocketMessage], error: CurlfireError?) {
    var messages: [WebSocketMessage] = []
    do {
        for try await message in request.messages() {
            messages.append(message)
            if messages.count >= limit { break }
        }
        return (messages, nil)
    } catch {
        return (messages, error)
    }
}
