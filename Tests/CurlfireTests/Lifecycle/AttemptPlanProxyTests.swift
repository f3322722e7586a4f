@testable import Curlfire
internal import CCurl
import Foundation
import FoundationNetworking
import XCTest

/// The proxy settings of a hop as its plan lists them, read without libcurl (issue 26, point 2):
/// the proxy's address, its credentials, `noProxy` and proxy-only headers.
final class AttemptPlanProxyTests: XCTestCase {
    private func written(_ configuration: SessionConfiguration, url: String = "https://origin.test/get")
        throws -> (AttemptOptions, AttemptPlanTests.Recorder) {
        let request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        let session = SessionManager(configuration: configuration)
        let options = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        var recorder = AttemptPlanTests.Recorder()
        AttemptPlan(request: request, body: .none, options: options).write(to: &recorder)
        return (options, recorder)
    }

    private func string(_ recorder: AttemptPlanTests.Recorder, _ option: CURLoption) -> String? {
        recorder.strings[option.rawValue] ?? nil
    }

    func testThatTodaysCallsStillCompileAndSendNoCredentials() throws {
        var configuration = SessionConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: 3128)
        let (_, recorder) = try written(configuration)
        XCTAssertEqual(string(recorder, CURLOPT_PROXY), "http://127.0.0.1:3128")
        XCTAssertFalse(recorder.strings.keys.contains(CURLOPT_PROXYUSERNAME.rawValue))
        XCTAssertNil(recorder.longs[CURLOPT_PROXYAUTH.rawValue], "no credentials, no authentication to negotiate")
        XCTAssertEqual(recorder.longs[CURLOPT_SUPPRESS_CONNECT_HEADERS.rawValue], 1, "a tunnel's 200 is not the response")
    }

    func testThatCredentialsGoToTheProxyWithEveryScheme() throws {
        var configuration = SessionConfiguration()
        let credential = URLCredential(user: "alice", password: "p:w@d", persistence: .forSession)
        configuration.proxy = .https(host: "proxy.test", port: 8443, credentials: credential)
        let (_, recorder) = try written(configuration)
        XCTAssertEqual(string(recorder, CURLOPT_PROXY), "https://proxy.test:8443")
        XCTAssertEqual(string(recorder, CURLOPT_PROXYUSERNAME), "alice")
        XCTAssertEqual(string(recorder, CURLOPT_PROXYPASSWORD), "p:w@d", "passed as is, never inside the URL")
        XCTAssertEqual(recorder.longs[CURLOPT_PROXYAUTH.rawValue], cfcurl_auth_any(), "Basic, Digest, NTLM, Negotiate")
        XCTAssertFalse(recorder.strings.keys.contains(CURLOPT_USERNAME.rawValue), "the origin gets none of them")
    }

    func testThatSOCKS5CredentialsAreItsUserNameAndPassword() throws {
        var configuration = SessionConfiguration()
        configuration.proxy = .socks5(host: "127.0.0.1", port: 1080,
                                      credentials: URLCredential(user: "u", password: "p", persistence: .none))
        let (_, recorder) = try written(configuration)
        XCTAssertEqual(string(recorder, CURLOPT_PROXY), "socks5h://127.0.0.1:1080")
        XCTAssertEqual(string(recorder, CURLOPT_PROXYUSERNAME), "u")
        XCTAssertEqual(string(recorder, CURLOPT_PROXYPASSWORD), "p")
        XCTAssertNil(recorder.longs[CURLOPT_PROXYAUTH.rawValue], "PROXYAUTH is HTTP's; SOCKS5 uses RFC 1929")
    }

    func testThatIPv6ProxyHostsAreBracketed() throws {
        var configuration = SessionConfiguration()
        for (proxy, expected) in [
            (SessionConfiguration.Proxy.http(host: "::1", port: 3128), "http://[::1]:3128"),
            (.http(host: "[::1]", port: 3128), "http://[::1]:3128"),
            (.socks5(host: "fd00::7", port: 1080), "socks5h://[fd00::7]:1080"),
            (.https(host: "proxy.test", port: 443), "https://proxy.test:443"),
        ] {
            configuration.proxy = proxy
            XCTAssertEqual(string(try written(configuration).1, CURLOPT_PROXY), expected)
        }
    }

    func testThatNoProxyListsHostsDomainsAndCIDRRanges() throws {
        var configuration = SessionConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: 3128)
        configuration.noProxy = ["localhost", " .internal.test ", "10.0.0.0/8", "fd00::/8", ""]
        XCTAssertEqual(string(try written(configuration).1, CURLOPT_NOPROXY), "localhost,.internal.test,10.0.0.0/8,fd00::/8")
        configuration.noProxy = ["*"]
        XCTAssertEqual(string(try written(configuration).1, CURLOPT_NOPROXY), "*")
        configuration.proxy = .environment
        let environment = try written(configuration).1
        XCTAssertFalse(environment.strings.keys.contains(CURLOPT_PROXY.rawValue), "the environment still names the proxy")
        XCTAssertEqual(string(environment, CURLOPT_NOPROXY), "*", "the list replaces no_proxy")
    }

    func testThatProxyHeadersAreSeparateFromTheOrigins() throws {
        var configuration = SessionConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: 3128)
        configuration.proxyHeaders = ["X-Proxy-Tenant": "blue", "X-Empty": ""]
        let (options, recorder) = try written(configuration)
        XCTAssertEqual(options.proxyRoute?.headerLines, ["X-Proxy-Tenant: blue", "X-Empty;"])
        XCTAssertEqual(recorder.longs[CURLOPT_HEADEROPT.rawValue], Int(CURLHEADER_SEPARATE))
    }

    func testThatAnUnsafeProxyHeaderIsRefusedBeforeSending() throws {
        var configuration = SessionConfiguration()
        configuration.proxyHeaders = ["X-Bad": "a\r\nInjected: yes"]
        let session = SessionManager(configuration: configuration)
        XCTAssertEqual(session.unsafeDefaultHeader, "X-Bad")
    }

    func testThatAnHTTPSProxyGetsItsOwnRootsAndPinsAndTheOriginsPolicyOnlyInsideTheTunnel() throws {
        let root = try TrustTestPKI.certificate("root-ca.pem")
        let key = try XCTUnwrap(PublicKey(pin: "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()))
        var configuration = SessionConfiguration()
        configuration.proxy = .https(host: "proxy.test", port: 8443)
        configuration.proxyTrust = .init(trustedRootCertificates: [root], pinnedPublicKeys: [key, key])
        let (_, recorder) = try written(configuration, url: "http://origin.test/")
        XCTAssertEqual(recorder.blobs[CURLOPT_PROXY_CAINFO_BLOB.rawValue], DNSOverHTTPS.pem([root]))
        XCTAssertEqual(recorder.strings[CURLOPT_PROXY_CAINFO.rawValue], .some(nil), "only the proxy's own roots")
        XCTAssertEqual(recorder.strings[CURLOPT_PROXY_CAPATH.rawValue], .some(nil))
        XCTAssertEqual(string(recorder, CURLOPT_PROXY_PINNEDPUBLICKEY), "\(key.pin);\(key.pin)")
        XCTAssertNil(recorder.blobs[CURLOPT_CAINFO_BLOB.rawValue], "the origin's CA store is not the proxy's")
        // An HTTPS origin with a policy: its evaluation skips the proxy's handshake.
        let session = SessionManager(configuration: configuration, serverTrustPolicyManager: ServerTrustPolicyManager(
            policies: ["origin.test": .pinPublicKeys(publicKeys: [key], validateCertificateChain: true, validateHost: true)]))
        let request = URLRequest(url: try XCTUnwrap(URL(string: "https://origin.test/")))
        let options = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        let tunnelled = try XCTUnwrap(options.trust as? TunnelledTrust)
        XCTAssertEqual((tunnelled.origin as? TLSTrustBridge)?.host, "origin.test")
        configuration.proxy = .http(host: "proxy.test", port: 3128)
        let plain = SessionManager(configuration: configuration, serverTrustPolicyManager: ServerTrustPolicyManager(
            policies: ["origin.test": .pinPublicKeys(publicKeys: [key], validateCertificateChain: true, validateHost: true)]))
        let direct = plain.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        XCTAssertTrue(direct.trust is TLSTrustBridge, "no TLS to an HTTP proxy: the origin's bridge as is")
    }

    func testThatASessionWithoutAProxyHasNoRoute() throws {
        XCTAssertNil(try written(SessionConfiguration()).0.proxyRoute, "nothing new on the hot path")
        var environment = SessionConfiguration()
        environment.proxy = .environment
        let (options, recorder) = try written(environment)
        XCTAssertNil(options.proxyRoute)
        XCTAssertFalse(recorder.strings.keys.contains(CURLOPT_PROXY.rawValue), "libcurl reads the environment")
    }

    func testThatA407IsTheProxysRefusal() {
        // The CONNECT of a tunnel answered 407.
        XCTAssertTrue(ProxyRefusal.refused(code: CURLE_RECV_ERROR, status: 407, connectStatus: 407, proxyError: 0, tunnelled: true))
        // A plain-HTTP request answered 407 by the proxy.
        XCTAssertTrue(ProxyRefusal.refused(code: CURLE_OK, status: 407, connectStatus: 0, proxyError: 0, tunnelled: false))
        // SOCKS5: user rejected, or no acceptable method.
        XCTAssertTrue(ProxyRefusal.refused(code: CURLE_PROXY, status: 0, connectStatus: 0,
                                           proxyError: Int(CURLPX_USER_REJECTED.rawValue), tunnelled: false))
        XCTAssertTrue(ProxyRefusal.refused(code: CURLE_PROXY, status: 0, connectStatus: 0,
                                           proxyError: Int(CURLPX_NO_AUTH.rawValue), tunnelled: true))
        // Not refusals: the origin's 407 inside a tunnel, a refused SOCKS connection, a tunnel that worked.
        XCTAssertFalse(ProxyRefusal.refused(code: CURLE_OK, status: 407, connectStatus: 200, proxyError: 0, tunnelled: true))
        XCTAssertFalse(ProxyRefusal.refused(code: CURLE_PROXY, status: 0, connectStatus: 0,
                                            proxyError: Int(CURLPX_REQUEST_FAILED.rawValue), tunnelled: false))
        XCTAssertFalse(ProxyRefusal.refused(code: CURLE_OK, status: 200, connectStatus: 200, proxyError: 0, tunnelled: true))
        XCTAssertEqual(AttemptEnding.proxyAuthenticationRequired(proxy: "p:1").error.map { "\($0)" },
                       "\(CurlfireError.proxyAuthenticationRequired(proxy: "p:1"))")
    }
}
