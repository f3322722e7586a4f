@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// `noProxy` and proxy-only headers against the real squid of scripts/test-servers.py --squid: its
/// access log shows which requests came through it, and the `X-Curlfire-Proxy` header it received.
final class ProxyRoutingTests: XCTestCase {
    private func session(_ servers: TestServerSet, edit: (inout SessionConfiguration) -> Void) throws -> SessionManager {
        let squid = try XCTUnwrap(servers.squid)
        var configuration = SessionConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: squid.http_port,
                                    credentials: URLCredential(user: squid.user, password: squid.password, persistence: .none))
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        edit(&configuration)
        return SessionManager(configuration: configuration)
    }

    func testThatNoProxyHostsAndCIDRRangesGoDirect() async throws {
        let servers = try TestServers.withSquid()
        for (noProxy, direct) in [(["127.0.0.1"], true), (["127.0.0.0/8"], true), (["*"], true),
                                  (["10.0.0.0/8", "example.test"], false), ([], false)] {
            let marker = Live.marker() + "-\(noProxy.count)-\(direct)-\(UUID().uuidString.prefix(8))"
            let manager = try session(servers) { $0.noProxy = noProxy }
            let response = await manager.request(servers.httpbin.absoluteString + "/get?\(marker)").validate()
                .serializingData().response
            XCTAssertNil(response.error, "\(noProxy): \(response.debugDescription)")
            XCTAssertFalse(servers.accessLogLines("httpbin", containing: marker).isEmpty, "\(noProxy): httpbin got it")
            let proxied = servers.accessLogLines("squid", containing: marker, timeout: direct ? 1 : 3)
            XCTAssertEqual(proxied.isEmpty, direct, "\(noProxy): squid saw \(proxied)")
        }
    }

    func testThatProxyHeadersGoToTheProxyOnlyThroughATunnel() async throws {
        let servers = try TestServers.withSquid()
        let origin = try servers.https("valid")
        var manager: SessionManager? = try session(servers) { $0.proxyHeaders = ["X-Curlfire-Proxy": "tenant-blue"] }
        let response = await manager?.request(origin.absoluteString + "/headers").validate().serializingJSON().response
        XCTAssertNil(response?.error, response.debugDescription)
        let headers = ((response?.value as? [String: Any])?["headers"] as? [String: Any]) ?? [:]
        XCTAssertFalse(headers.keys.contains { $0.lowercased() == "x-curlfire-proxy" }, "the origin never sees it: \(headers)")
        XCTAssertFalse(headers.isEmpty, "httpbin echoed the origin's headers")
        manager = nil // squid logs a tunnel when it closes
        var tunnel: [String] = []
        let deadline = Date().addingTimeInterval(10)
        repeat {
            tunnel = servers.accessLogLines("squid", containing: "CONNECT localhost:\(origin.port ?? 0)", timeout: 0)
                .filter { $0.contains("TCP_TUNNEL/200") && $0.contains("proxy-header=tenant-blue") }
            if tunnel.isEmpty { try await Task.sleep(nanoseconds: 50_000_000) }
        } while tunnel.isEmpty && Date() < deadline
        XCTAssertEqual(tunnel.count, 1, "the CONNECT carried it: \(servers.accessLogLines("squid", containing: "CONNECT"))")
    }
}
