import Curlfire
import Foundation
import XCTest

/// Pins against a real interceptor: mitmdump (mitmproxy 11.0.x, `make mitm-venv`) as the session's
/// HTTP proxy, forging a certificate for every HTTPS origin with its own CA. httpbin over HTTPS
/// (the test PKI's valid leaf, reachable as localhost and 127.0.0.1) is the origin.
final class InterceptingProxyPinningTests: XCTestCase {
    private var servers: TestServerSet!
    private var proxy: MitmProxy!
    private var testRoot: Certificate!
    private var mitmRoot: Certificate!
    private var originKey: PublicKey!

    override func setUpWithError() throws {
        servers = try Live.servers()
        proxy = try MitmProxy.shared(upstreamRoot: servers.pkiFile("root-ca.pem"))
        testRoot = try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))
        mitmRoot = try Certificate(contentsOf: proxy.caFile)
        originKey = try XCTUnwrap(try Certificate(contentsOf: servers.pkiFile("leaf.pem")).publicKey)
    }

    /// XCTest never frees its test-case instances; the certificates are released here so that
    /// LeakSanitizer does not report them (`make sanitize-leaks`, docs/Reliability.md "Leaks").
    override func tearDown() {
        (testRoot, mitmRoot, originKey) = (nil, nil, nil)
    }

    override class func tearDown() {
        MitmProxy.stopShared()
    }

    /// A session whose every request goes through mitmdump, trusting `roots`, with `policies`.
    private func session(trusting roots: [Certificate], policies: [String: ServerTrustPolicy]? = nil) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.proxy = .http(host: "127.0.0.1", port: proxy.port)
        configuration.trustedRootCertificates = roots
        return SessionManager(configuration: configuration,
                              serverTrustPolicyManager: policies.map(ServerTrustPolicyManager.init(policies:)))
    }

    /// Pins localhost to the origin's own leaf key (what it would pin in production).
    private var pinnedLocalhost: [String: ServerTrustPolicy] {
        ["localhost": .pinPublicKeys(publicKeys: [originKey], validateCertificateChain: true, validateHost: true)]
    }

    /// httpbin over HTTPS as `https://localhost:PORT` (pinned in these tests) or `https://127.0.0.1:PORT`.
    private func origin(_ host: String = "localhost") throws -> String {
        "https://\(host):\(try servers.https("valid").port ?? 443)"
    }

    private func trustReason(_ response: DataResponse<Data>) -> CurlfireError.ServerTrustFailureReason? {
        if case let .serverTrustEvaluationFailed(_, reason)? = response.error { return reason }
        return nil
    }

    /// Neither the origin nor mitmproxy's flow log saw a request carrying `marker` in the clear.
    private func assertNothingReachedTheOrigin(_ marker: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(servers.accessLogLines("valid", containing: "marker=\(marker)", timeout: 1).isEmpty,
                      "the origin received the request", file: file, line: line)
        XCTAssertTrue(proxy.flowLines(containing: "marker=\(marker)", timeout: 0.2).isEmpty,
                      "mitmproxy forwarded the request", file: file, line: line)
    }

    /// Succeeds through the proxy and returns httpbin's echo of the request's query.
    private func assertArrived(_ response: DataResponse<Data>, marker: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertNil(response.error, response.debugDescription, file: file, line: line)
        XCTAssertEqual(response.response?.statusCode, 200, file: file, line: line)
        let echo = try JSONSerialization.jsonObject(with: XCTUnwrap(response.data)) as? [String: Any]
        XCTAssertEqual((echo?["args"] as? [String: Any])?["marker"] as? String, marker, "httpbin's echo", file: file, line: line)
        XCTAssertFalse(proxy.flowLines(containing: marker, timeout: 3).isEmpty,
                       "the request went through mitmproxy", file: file, line: line)
    }

    // MARK: - Trust without pins

    func testThatDefaultTrustRejectsTheInterceptorsCertificateAndNothingReachesTheOrigin() async throws {
        // The system roots, then the origin's own root: neither vouches for mitmproxy's forged leaf.
        for roots in [[], [testRoot!]] {
            let marker = Live.marker()
            let response = await session(trusting: roots).request(try origin() + "/get?marker=\(marker)")
                .serializingData().response
            guard case let .serverTrustEvaluationFailed(host, .chainInvalid(_, message))? = response.error else {
                return XCTFail("an unknown CA must fail the chain: \(response.debugDescription)")
            }
            XCTAssertEqual(host, "localhost")
            XCTAssertFalse(message.isEmpty)
            assertNothingReachedTheOrigin(marker)
        }
    }

    func testThatTrustingTheInterceptorsCAWithoutAPinReachesTheOrigin() async throws {
        let marker = Live.marker()
        let response = await session(trusting: [mitmRoot]).request(try origin() + "/get?marker=\(marker)")
            .validate().serializingData().response
        try assertArrived(response, marker: marker)
        XCTAssertFalse(servers.accessLogLines("valid", containing: "marker=\(marker)").isEmpty, "the origin served it")
    }

    // MARK: - A pinned origin behind a trusted interceptor

    func testThatAPinnedOriginFailsThroughTheProxyEvenWithItsCATrusted() async throws {
        let marker = Live.marker()
        let response = await session(trusting: [mitmRoot, testRoot], policies: pinnedLocalhost)
            .request(try origin() + "/get?marker=\(marker)").serializingData().response
        guard case let .serverTrustEvaluationFailed(host, reason)? = response.error else {
            return XCTFail("the forged certificate carries mitmproxy's key, not the pinned one: \(response.debugDescription)")
        }
        XCTAssertEqual(host, "localhost")
        XCTAssertEqual(reason, .publicKeyPinMismatch)
        assertNothingReachedTheOrigin(marker)
    }

    func testThatARedirectFromAnUnpinnedHostToThePinnedOneFailsOnThePinnedHop() async throws {
        let marker = Live.marker()
        let target = try origin() + "/get?marker=\(marker)"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let start = try origin("127.0.0.1") + "/redirect-to?url=\(encoded)"
        let response = await session(trusting: [mitmRoot], policies: pinnedLocalhost).request(start)
            .serializingData().response
        guard case let .serverTrustEvaluationFailed(host, reason)? = response.error else {
            return XCTFail("the hop to the pinned host must fail its pin: \(response.debugDescription)")
        }
        XCTAssertEqual(host, "localhost", "the failure names the pinned hop")
        XCTAssertEqual(reason, .publicKeyPinMismatch)
        // The first (unpinned) hop went through the interceptor to the origin; its log line carries
        // the marker only percent-encoded, the refused hop's would carry it in the clear.
        XCTAssertFalse(servers.accessLogLines("valid", containing: "/redirect-to").isEmpty, "the first hop arrived")
        assertNothingReachedTheOrigin(marker)
    }

    func testThatAReusedSessionStillFailsThePinAfterUnpinnedRequestsSucceed() async throws {
        let session = session(trusting: [mitmRoot], policies: pinnedLocalhost)
        for round in 1...2 {
            // Another host through the same proxy succeeds: its connection (and TLS session) may be
            // reused, and the pinned host's requests must still be evaluated with its own pin.
            let unpinnedMarker = Live.marker()
            let unpinned = await session.request(try origin("127.0.0.1") + "/get?marker=\(unpinnedMarker)")
                .validate().serializingData().response
            try assertArrived(unpinned, marker: unpinnedMarker)
            if round == 2 { XCTAssertEqual(unpinned.metrics?.isReusedConnection, true, "the proxy connection was reused") }
            let marker = Live.marker()
            let pinned = await session.request(try origin() + "/get?marker=\(marker)").serializingData().response
            XCTAssertEqual(trustReason(pinned), .publicKeyPinMismatch, "round \(round): \(pinned.debugDescription)")
            assertNothingReachedTheOrigin(marker)
        }
    }
}
