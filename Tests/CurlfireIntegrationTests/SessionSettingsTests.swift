import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// Settings of `SessionConfiguration` that had no test: each checked against a real server on
/// loopback, with a control that shows the opposite setting behaves differently (so the test fails
/// if the setting is ignored).
final class SessionSettingsTests: XCTestCase {
    private static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    // MARK: - followsRedirects

    func testThatFollowsRedirectsFalseDeliversThe3xxAndNeverRequestsTheTarget() async throws {
        let servers = try Live.servers()
        let marker = Live.marker()
        let target = "/anything/\(marker)"
        let url = try Live.httpbin("/redirect-to?url=\(target)&status_code=302")
        var configuration = SessionConfiguration()
        configuration.followsRedirects = false
        let response = await awaitResponse { SessionManager(configuration: configuration).request(url).response(completionHandler: $0) }
        XCTAssertNil(response.error, "\(String(describing: response.error))")
        XCTAssertEqual(response.response?.statusCode, 302)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Location"), target)
        XCTAssertEqual(response.metrics?.redirectCount, 0, "no hop")
        // Control: the default follows to the same target, which the server then logs.
        let controlMarker = Live.marker()
        let followed = await SessionManager().request(try Live.httpbin("/redirect-to?url=/anything/\(controlMarker)&status_code=302"))
            .serializingData().response
        XCTAssertEqual(followed.response?.statusCode, 200, followed.debugDescription)
        XCTAssertEqual(servers.accessLogLines("httpbin", containing: "GET /anything/\(controlMarker)").count, 1)
        XCTAssertTrue(servers.accessLogLines("httpbin", containing: "GET /anything/\(marker)", timeout: 0).isEmpty,
                      "the redirect target was never requested")
    }

    // MARK: - httpVersion

    private func nginxHTTPSVersion(_ version: SessionConfiguration.HTTPVersion, marker: String) async throws -> (String?, String) {
        let servers = try Live.servers()
        let base = try XCTUnwrap(servers.nginxHTTPS, "nginx is required")
        var configuration = SessionConfiguration()
        configuration.httpVersion = version
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        let url = base.appendingPathComponent("small.txt").absoluteString + "?\(marker)"
        let response = await SessionManager(configuration: configuration).request(url).validate().serializingData().response
        XCTAssertNil(response.error, response.debugDescription)
        var line = ""
        _ = ProcessResources.settle(timeout: 3) {
            line = servers.accessLogLines("nginx").first { $0.contains(marker) } ?? ""
            return !line.isEmpty
        }
        return (response.metrics?.httpVersion, line)
    }

    func testThatHTTP1_1IsUsedWhenAskedEvenWhereTheServerOffersHTTP2() async throws {
        let oneMarker = Live.marker()
        let (one, oneLine) = try await nginxHTTPSVersion(.http1_1, marker: oneMarker)
        XCTAssertEqual(one, "HTTP/1.1")
        XCTAssertTrue(oneLine.contains("HTTP/1.1\""), "nginx saw HTTP/1.1: \(oneLine)")
        // Control: the same server negotiates HTTP/2 by default.
        let twoMarker = Live.marker()
        let (two, twoLine) = try await nginxHTTPSVersion(.automatic, marker: twoMarker)
        XCTAssertEqual(two, "HTTP/2")
        XCTAssertTrue(twoLine.contains("HTTP/2.0\""), "nginx saw HTTP/2: \(twoLine)")
    }

    // MARK: - SOCKS5

    func testThatASOCKS5ProxyCarriesTheRequestAndItsRefusalIsTyped() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("socks5-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let started: BackgroundProcess.Started
        do {
            started = try BackgroundProcess.start(["python3", Self.repositoryRoot.appendingPathComponent("scripts/socks5-server.py").path,
                                                   "--log", log.path, "--parent-pid", String(getpid())])
        } catch {
            return XCTFail("the SOCKS5 server did not start: \(error)")
        }
        defer { kill(started.pid, SIGTERM) }
        let port = try XCTUnwrap((try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int])?["socks5"],
                                 started.firstLine)
        var configuration = SessionConfiguration()
        configuration.proxy = .socks5(host: "127.0.0.1", port: port)
        let session = SessionManager(configuration: configuration)
        let marker = Live.marker()
        let httpbin = try Live.servers().httpbin
        // `localhost` on purpose: with socks5h the proxy, not libcurl, resolves the name.
        let url = "http://localhost:\(httpbin.port ?? 0)/get?\(marker)"
        let response = await session.request(url).validate().serializingJSON().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual((response.value as? [String: Any])?["url"] as? String, url)
        var entries: [String] = []
        _ = ProcessResources.settle(timeout: 3) {
            entries = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
            return !entries.isEmpty
        }
        XCTAssertEqual(entries, ["CONNECT localhost:\(httpbin.port ?? 0) -> 0 ok"], "the name went to the proxy unresolved")

        // The proxy refuses (nothing listens on port 1): a typed error, at once.
        let started2 = Date()
        let refused = await session.request("http://127.0.0.1:1/").serializingData().response
        // libcurl's CURLE_PROXY (97): TransportErrorCode has no case of its own for a proxy that
        // refuses the tunnel (docs/Reliability.md); the test pins today's mapping.
        XCTAssertEqual(refused.error?.transportErrorCode, .other(curlCode: 97), refused.debugDescription)
        XCTAssertNil(refused.response)
        XCTAssertLessThan(Date().timeIntervalSince(started2), 3)
        let refusal = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(refusal.contains("CONNECT 127.0.0.1:1 -> 5 refused"), refusal)
    }
}
