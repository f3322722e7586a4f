// Test support: mitmdump (mitmproxy 11.0.x from <repo>/.venv-mitm, `make mitm-venv`) as an
// HTTPS-intercepting regular proxy on loopback, started through scripts/mitm-proxy.py.

import CurlfireTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A running mitmdump: its port on 127.0.0.1, the CA it signs its forged certificates with, and
/// its flow log (one line per request it forwarded to an origin).
struct MitmProxy: Sendable {
    let pid: pid_t
    let port: Int
    let caFile: URL
    let flowLog: URL

    /// Lines of the flow log containing `needle` (a request's unique marker), polling until one
    /// appears or `timeout` passes.
    func flowLines(containing needle: String, timeout: TimeInterval) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let text = FileManager.default.contents(atPath: flowLog.path).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let lines = text.split(separator: "\n").map(String.init).filter { $0.contains(needle) }
            if !lines.isEmpty || Date() >= deadline { return lines }
            usleep(20_000)
        }
    }

    private static let running = Mutex<MitmProxy?>(nil)

    /// Starts mitmdump once per test process, upstream trusting only the test PKI's root; later
    /// calls return the same proxy. Its state (the generated CA and its key) lives in
    /// `.testservers/mitm`, never under /tmp. The wrapper exits with this process.
    static func shared(upstreamRoot: URL) throws -> MitmProxy {
        try running.withLock { proxy in
            if let proxy { return proxy }
            let root = TestServers.repositoryRoot
            let venvTool = root.appendingPathComponent(".venv-mitm/bin/mitmdump")
            guard FileManager.default.isExecutableFile(atPath: venvTool.path) else {
                throw TestServerError("\(venvTool.path) is missing: run `make mitm-venv`")
            }
            let confdir = root.appendingPathComponent(".testservers/mitm")
            let started = try BackgroundProcess.start([
                "python3", root.appendingPathComponent("scripts/mitm-proxy.py").path,
                "--confdir", confdir.path, "--upstream-ca", upstreamRoot.path, "--parent-pid", String(getpid()),
            ])
            guard let fields = try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Any],
                  let port = fields["port"] as? Int, let ca = fields["ca"] as? String, let flows = fields["flows"] as? String else {
                kill(started.pid, SIGTERM)
                throw TestServerError("mitm-proxy.py printed \"\(started.firstLine)\" instead of its port")
            }
            let proxy_ = MitmProxy(pid: started.pid, port: port, caFile: URL(fileURLWithPath: ca),
                                     flowLog: URL(fileURLWithPath: flows))
            proxy = proxy_
            return proxy_
        }
    }

    /// Stops the shared proxy (by its wrapper's PID; the wrapper stops mitmdump by its own).
    static func stopShared() {
        running.withLock { proxy in
            if let pid = proxy?.pid { kill(pid, SIGTERM) }
            proxy = nil
        }
    }
}
