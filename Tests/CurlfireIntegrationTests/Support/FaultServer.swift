// Test support: scripts/fault-server.py, a misbehaving HTTP(S) server on loopback (port 0), one
// process per test process, stopped when the test process exits.
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/fault-server.py").path,
                             "--cert", servers.pkiFile("leaf-chain.pem").path, "--key", servers.pkiFile("leaf.key").path,
                             "--parent-pid", String(ProcessInfo.processInfo.processIdentifier)]
        let output = Pipe()
        process.standardOutput = output
        // Not the test process's own stdout/stderr: `swift test` waits for those to close.
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw TestServerError("fault-server.py exited before printing its ports") }
            line.append(chunk)
        }
        guard let ports = try JSONSerialization.jsonObject(with: line) as? [String: Int],
              let http = ports["http"], let https = ports["https"] else {
            throw TestServerError("fault-server.py printed \(String(decoding: line, as: UTF8.self))")
        }
        return FaultServer(http: URL(string: "http://127.0.0.1:\(http)")!, https: URL(string: "https://localhost:\(https)")!)
    }
}
