@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Proxies with credentials against a real squid with Basic authentication (`basic_ncsa_auth`,
/// started by scripts/test-servers.py --squid): squid's access log shows each request came through
/// it under the proxy user, and wrong or missing credentials are a typed
/// ``CurlfireError/proxyAuthenticationRequired(proxy:)``.
final class ProxyAuthenticationTests: XCTestCase {
    private func squid() throws -> (TestServerSet, TestServerSet.SquidProxy) {
        let servers = try TestServers.withSquid()
        return (servers, try XCTUnwrap(servers.squid))
    }

    private func session(_ proxy: SessionConfiguration.Proxy, servers: TestServerSet,
                         edit: (inout SessionConfiguration) -> Void = { _ in }) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.proxy = proxy
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        edit(&configuration)
        return SessionManager(configuration: configuration)
    }

    private func credential(_ squid: TestServerSet.SquidProxy, password: String? = nil) -> URLCredential {
        URLCredential(user: squid.user, password: password ?? squid.password, persistence: .forSession)
    }

    func testThatAPlainHTTPRequestGoesThroughTheAuthenticatingProxy() async throws {
        let (servers, squid) = try squid()
        let proxied = try session(.http(host: "127.0.0.1", port: squid.http_port, credentials: credential(squid)),
                                  servers: servers)
        let marker = Live.marker()
        let url = servers.httpbin.absoluteString + "/get?\(marker)"
        let response = await proxied.request(url).validate().serializingJSON().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual((response.value as? [String: Any])?["url"] as? String, url)
        // libcurl asks first without credentials to learn the proxy's scheme (CURLAUTH_ANY): a 407,
        // then the request with Basic credentials, which squid serves to its user.
        let served = servers.accessLogLines("squid", containing: "TCP_MISS/200 ").filter { $0.contains(marker) }
        XCTAssertEqual(served.count, 1, "\(servers.accessLogLines("squid", containing: marker))")
        XCTAssertTrue(served.first?.contains(" \(squid.user) HIER_DIRECT") == true, "squid served its authenticated user: \(served)")
    }

    func testThatAnHTTPSRequestTunnelsThroughTheAuthenticatingProxy() async throws {
        let (servers, squid) = try squid()
        let origin = try servers.https("valid")
        var proxied: SessionManager? = try session(
            .http(host: "127.0.0.1", port: squid.http_port, credentials: credential(squid)), servers: servers)
        let response = await proxied?.request(origin.absoluteString + "/get").validate().serializingData().response
        XCTAssertNil(response?.error, response.debugDescription)
        // squid logs a tunnel when it closes: releasing the session closes its connections.
        proxied = nil
        let tunnel = servers.accessLogLines("squid", containing: "TCP_TUNNEL/200 ", timeout: 10)
            .filter { $0.contains("CONNECT localhost:\(origin.port ?? 0)") }
        XCTAssertTrue(tunnel.contains { $0.contains("TCP_TUNNEL/200") && $0.contains(" \(squid.user) ") }, "\(tunnel)")
    }

    func testThatAWrongPasswordIsProxyAuthenticationRequired() async throws {
        let (servers, squid) = try squid()
        let proxy = "127.0.0.1:\(squid.http_port)"
        for credentials in [credential(squid, password: "wrong"), nil] {
            let proxied = try session(.http(host: "127.0.0.1", port: squid.http_port, credentials: credentials),
                                      servers: servers)
            // Plain HTTP: squid's 407 would be the response; HTTPS: it answers the CONNECT.
            for url in [servers.httpbin.absoluteString + "/get", try servers.https("valid").absoluteString + "/get"] {
                let response = await proxied.request(url).serializingData().response
                guard case .proxyAuthenticationRequired(proxy: proxy)? = response.error else {
                    XCTFail("\(url), credentials \(credentials == nil ? "none" : "wrong"): \(response.debugDescription)")
                    continue
                }
                XCTAssertNil(response.response, "the proxy's 407 page is not the origin's response")
            }
        }
        XCTAssertFalse(servers.accessLogLines("squid", containing: "TCP_DENIED/407").isEmpty, "squid refused them itself")
    }

    func testThatAWebSocketTunnelRefusedByTheProxyIsTyped() async throws {
        let (servers, squid) = try squid()
        let target = "ws://127.0.0.1:1/echo" // nothing listens: only the proxy's answer matters
        let wrong = try session(.http(host: "127.0.0.1", port: squid.http_port, credentials: credential(squid, password: "wrong")),
                                servers: servers)
        let (_, refused) = await collect(wrong.webSocketRequest(target))
        guard case .proxyAuthenticationRequired(proxy: "127.0.0.1:\(squid.http_port)")? = refused else {
            return XCTFail("\(String(describing: refused))")
        }
        // The right credentials pass the proxy, which then cannot reach the target: another error.
        let right = try session(.http(host: "127.0.0.1", port: squid.http_port, credentials: credential(squid)), servers: servers)
        let (_, unreachable) = await collect(right.webSocketRequest(target))
        XCTAssertNotNil(unreachable)
        if case .proxyAuthenticationRequired? = unreachable { XCTFail("squid accepted these credentials") }
    }
}
