import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// The session cookie store against httpbin's /cookies endpoints, and proxies through a loopback proxy (a MockServer).
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
        // The proxy is a MockServer that answers every request itself: what it records shows
        // which requests came through it (in absolute form, as clients address a proxy).
        let proxy = try MockServer { _ in
            MockResponse(headers: ["Via": "test-proxy", "Content-Type": "application/json"],
                         body: Data(#"{"proxied":true}"#.utf8))
        }

        var viaConfiguration = SessionConfiguration()
        viaConfiguration.proxy = .http(host: "127.0.0.1", port: proxy.port)
        let viaMarker = Live.marker()
        let via = await SessionManager(configuration: viaConfiguration)
            .request(try Live.httpbin("/get?\(viaMarker)")).validate().serializingJSON().response
        XCTAssertNil(via.error, via.debugDescription)
        XCTAssertEqual(via.response?.value(forHTTPHeaderField: "Via"), "test-proxy")
        let viaRequest = try XCTUnwrap(proxy.takeRequest(timeout: 1))
        XCTAssertTrue(viaRequest.path.hasPrefix("http://127.0.0.1:") && viaRequest.path.hasSuffix("/get?\(viaMarker)"),
                      "an absolute-form proxy request: \(viaRequest.path)")

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
        var paths: [String] = []
        while let request = proxy.takeRequest(timeout: 0) { paths.append(request.path) }
        XCTAssertFalse(paths.contains { $0.contains(ignoredMarker) })
        XCTAssertTrue(paths.contains { $0.contains(honouredMarker) }, "\(paths)")
    }
}
