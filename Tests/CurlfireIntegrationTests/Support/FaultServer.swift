// Test support: scripts/fault-server.py, a misbehaving HTTP(S) server on loopback (port 0), one
// process per test process, stopped when the test process exits.
import CurlfireTestSupport
import Foundation
import Synchronization

struct FaultServer: Sendable {
    /// `http://127.0.0.1:PORT`
    let http: URL
    /// `https://localhost:PORT`: completes the TLS handshake, then closes.
    let https: URL

    /// `http://127.0.0.1:PORT/<path>`
    func url(_ path: String) -> String { http.absoluteString + path }

    private static let started = Mutex<Result<FaultServer, TestServerError>?>(nil)

    /// Starts the server on first use; later calls return the same one.
    static func shared() throws -> FaultServer {
        try started.withLock { state in
            if let state { return try state.get() }
            let result = Result { try launch() }.mapError { $0 as? TestServerError ?? TestServerError("\($0)") }
            state = result
            return try result.get()
        }
    }

    private static func launch() throws -> FaultServer {
        let servers = try TestServers.shared() // for the PKI
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let ports: [String: Int]
        do {
            ports = try BackgroundProcess.startFaultServer(
                script: root.appendingPathComponent("scripts/fault-server.py"),
                arguments: ["--cert", servers.pkiFile("leaf-chain.pem").path, "--key", servers.pkiFile("leaf.key").path]).ports
        } catch {
            throw TestServerError("\(error)")
        }
        guard let http = ports["http"], let https = ports["https"] else {
            throw TestServerError("fault-server.py gave no HTTPS port: \(ports)")
        }
        return FaultServer(http: URL(string: "http://127.0.0.1:\(http)")!, https: URL(string: "https://localhost:\(https)")!)
    }
}
