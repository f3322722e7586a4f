import Curlfire
import Foundation
import XCTest

/// The session cookie store against httpbin's /cookies endpoints, and proxies through a loopback proxy.
final class CookieAndProxyTests: XCTestCase {
    private func cookiesSeenByServer(_ session: SessionManager) async throws -> [String: String] {
        let response = await session.request(try Live.httpbin("/cookies")).validate().serializingJSON().response
        let json = try XCTUnwrap(response.value as? [String: Any], response.debugDescription)
        return (json["cookies"] as? [String: String]) ?? [:]
    }

    func testThatCookiesRoundTripAndCanBeInspectedSetAndCleared() async throws {
        let session = SessionManager()
        _ = await session.request(try Live.httpbin("/cookies/set?flavour=oat")).validate().serializingData().response
        let seen = try await cookiesSeenByServer(session)
        XCTAssertEqual(seen["flavour"], "oat", "a cookie set by a response is sent on later requests")
        let stored = await session.cookieStore.cookies()
        XCTAssertEqual(stored.first { $0.name == "flavour" }?.value, "oat")
        XCTAssertEqual(stored.first { $0.name == "flavour" }?.domain, "127.0.0.1")
        let forURL = await session.cookieStore.cookies(for: try XCTUnwrap(URL(string: try Live.httpbin("/anything"))))
        XCTAssertEqual(forURL.map(\.name), ["flavour"])

        let added = try XCTUnwrap(HTTPCookie(properties: [.domain: "127.0.0.1", .path: "/", .name: "added", .value: "1"]))
        await session.cookieStore.setCookie(added)
        let afterSet = try await cookiesSeenByServer(session)
        XCTAssertEqual(afterSet, ["flavour": "oat", "added": "1"])

        await session.cookieStore.removeAllCookies()
        let afterClear = try await cookiesSeenByServer(session)
        XCTAssertEqual(afterClear, [:])
        let remaining = await session.cookieStore.cookies()
        XCTAssertTrue(remaining.isEmpty)
    }

    func testThatCookiesPersistThroughAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cookies-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        let first = SessionManager()
        _ = await first.request(try Live.httpbin("/cookies/set?kept=yes")).validate().serializingData().response
        try await first.cookieStore.write(to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains("\tkept\tyes"), text)

        let second = SessionManager()
        let before = try await cookiesSeenByServer(second)
        XCTAssertEqual(before, [:], "sessions do not share cookies")
        try await second.cookieStore.load(from: file)
        let after = try await cookiesSeenByServer(second)
        XCTAssertEqual(after["kept"], "yes")
    }

    func testThatCookiesAreOffWhenTheConfigurationSaysSo() async throws {
        var configuration = SessionConfiguration()
        configuration.httpShouldSetCookies = false
        let session = SessionManager(configuration: configuration)
        _ = await session.request(try Live.httpbin("/cookies/set?ignored=1")).serializingData().response
        let seen = try await cookiesSeenByServer(session)
        XCTAssertEqual(seen, [:])
        XCTAssertFalse(session.cookieStore.isEnabled)
        let stored = await session.cookieStore.cookies()
        XCTAssertTrue(stored.isEmpty)
    }

    // MARK: - Proxies

    func testThatAnHTTPProxyIsUsedAndTheEnvironmentOnlyWhenAskedFor() async throws {
        let proxy = try LoopbackProxy()
        defer { proxy.stop() }

        var viaConfiguration = SessionConfiguration()
        viaConfiguration.proxy = .http(host: "127.0.0.1", port: proxy.port)
        let viaMarker = Live.marker()
        let via = await SessionManager(configuration: viaConfiguration)
            .request(try Live.httpbin("/get?\(viaMarker)")).validate().serializingJSON().response
        XCTAssertNil(via.error, via.debugDescription)
        XCTAssertEqual(via.response?.value(forHTTPHeaderField: "Via"), "test-proxy")
        XCTAssertTrue(proxy.requestLines().contains { $0.contains(viaMarker) })

        let saved = ["http_proxy", "no_proxy", "NO_PROXY"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        setenv("http_proxy", "http://127.0.0.1:\(proxy.port)", 1)
        unsetenv("no_proxy")
        unsetenv("NO_PROXY")
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        let ignoredMarker = Live.marker()
        let ignored = await SessionManager().request(try Live.httpbin("/get?\(ignoredMarker)")).validate()
            .serializingData().response
        XCTAssertNil(ignored.error)
        XCTAssertNil(ignored.response?.value(forHTTPHeaderField: "Via"), "the default (.none) ignores http_proxy")
        var environmentConfiguration = SessionConfiguration()
        environmentConfiguration.proxy = .environment
        let honouredMarker = Live.marker()
        let honoured = await SessionManager(configuration: environmentConfiguration)
            .request(try Live.httpbin("/get?\(honouredMarker)")).validate().serializingData().response
        XCTAssertEqual(honoured.response?.value(forHTTPHeaderField: "Via"), "test-proxy", honoured.debugDescription)
        let lines = proxy.requestLines()
        XCTAssertFalse(lines.contains { $0.contains(ignoredMarker) })
        XCTAssertTrue(lines.contains { $0.contains(honouredMarker) })
    }
}

/// A forward HTTP proxy on loopback (Python's standard library) that logs each request line.
final class LoopbackProxy {
    private static let script = #"""
    import http.server, socketserver, sys, urllib.request, urllib.error
    log = open(sys.argv[1], "a", buffering=1)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def do_GET(self):
            log.write(self.requestline + "\n")
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection", "host")}
            try:
                upstream = opener.open(urllib.request.Request(self.path, headers=headers), timeout=10)
                status, body, pairs = upstream.status, upstream.read(), upstream.getheaders()
            except urllib.error.HTTPError as error:
                status, body, pairs = error.code, error.read(), list(error.headers.items())
            self.send_response(status)
            for name, value in pairs:
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Via", "test-proxy")
            self.end_headers()
            self.wfile.write(body)
        def log_message(self, *args):
            pass
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """#

    let port: Int
    private let process = Process()
    private let log: URL

    init() throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", Self.script, log.path]
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { throw TestServerError("the proxy exited before reporting its port") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestServerError("unexpected proxy output: \(text)")
        }
        self.port = port
    }

    /// Request lines the proxy has seen (`GET http://… HTTP/1.1`).
    func requestLines() -> [String] {
        (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    func stop() {
        // SIGKILL: the child inherits a signal mask from the test process that blocks SIGTERM.
        // Not waitUntilExit(): it can hang on Linux while other children exist; Foundation reaps it.
        kill(process.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(at: log)
    }
}
