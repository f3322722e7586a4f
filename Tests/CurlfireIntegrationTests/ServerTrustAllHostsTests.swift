import Curlfire
import Foundation
import XCTest

/// `ServerTrustPolicyManager(allHostsMustBeEvaluated:)` in real TLS handshakes against httpbin over
/// HTTPS (`https://localhost:PORT`): policies are keyed by the URL's host exactly, and a host without
/// one fails instead of falling back to default evaluation.
final class ServerTrustAllHostsTests: XCTestCase {
    private var servers: TestServerSet!
    private var root: Certificate!
    private var leaf: Certificate!

    override func setUpWithError() throws {
        servers = try Live.servers()
        root = try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))
        leaf = try Certificate(contentsOf: servers.pkiFile("leaf.pem"))
    }

    /// Released here so that LeakSanitizer does not report XCTest's never-freed test cases' certificates.
    override func tearDown() {
        (root, leaf) = (nil, nil)
    }

    /// A session that trusts the test root (so default evaluation of "valid" passes) with `policies`.
    private func session(_ policies: [String: ServerTrustPolicy], allHostsMustBeEvaluated: Bool) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        return SessionManager(configuration: configuration,
                              serverTrustPolicyManager: ServerTrustPolicyManager(policies: policies,
                                                                                 allHostsMustBeEvaluated: allHostsMustBeEvaluated))
    }

    private func pinUnder(_ host: String) throws -> [String: ServerTrustPolicy] {
        [host: .pinPublicKeys(publicKeys: [try XCTUnwrap(leaf.publicKey)], validateCertificateChain: true, validateHost: true)]
    }

    private func get(_ session: SessionManager) async throws -> DataResponse<Data> {
        let url = try servers.https("valid").absoluteString + "/get"
        XCTAssertEqual(URL(string: url)?.host, "localhost")
        return await session.request(url).validate().serializingData().response
    }

    func testThatAPinUnderTheIPAddressDoesNotCoverLocalhostAndFallsBackByDefault() async throws {
        // The surprise this option exists for: the pin is never consulted, yet the request succeeds.
        let response = try await get(session(try pinUnder("127.0.0.1"), allHostsMustBeEvaluated: false))
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
    }

    func testThatAPinUnderTheIPAddressFailsForLocalhostWhenAllHostsMustBeEvaluated() async throws {
        let response = try await get(session(try pinUnder("127.0.0.1"), allHostsMustBeEvaluated: true))
        guard case let .serverTrustEvaluationFailed(host, reason)? = response.error else {
            return XCTFail("expected a trust failure, got \(response.debugDescription)")
        }
        XCTAssertEqual(host, "localhost")
        XCTAssertEqual(reason, .noPolicyForHost)
        XCTAssertNil(response.response, "nothing may be received from a server that was not evaluated")
        let description = try XCTUnwrap(response.error?.localizedDescription)
        XCTAssertTrue(description.contains("localhost") && description.contains("allHostsMustBeEvaluated"), description)
    }

    func testThatAPinUnderTheURLsHostPassesWhenAllHostsMustBeEvaluated() async throws {
        let response = try await get(session(try pinUnder("localhost"), allHostsMustBeEvaluated: true))
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
        let wildcardOnly = try await get(session(try pinUnder("*.localhost"), allHostsMustBeEvaluated: true))
        XCTAssertEqual(wildcardOnly.error.flatMap(Self.trustReason), .noPolicyForHost,
                       "a one-label wildcard never matches the bare name")
    }

    func testThatPlainHTTPIsNotEvaluatedEvenWhenAllHostsMustBeEvaluated() async throws {
        let session = session([:], allHostsMustBeEvaluated: true)
        let response = await session.request(try Live.httpbin("/get")).validate().serializingData().response
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
    }

    func testThatTheOptionIsOffByDefault() {
        XCTAssertFalse(ServerTrustPolicyManager(policies: [:]).allHostsMustBeEvaluated)
        XCTAssertTrue(ServerTrustPolicyManager(policies: [:], allHostsMustBeEvaluated: true).allHostsMustBeEvaluated)
    }

    private static func trustReason(_ error: CurlfireError) -> CurlfireError.ServerTrustFailureReason? {
        if case let .serverTrustEvaluationFailed(_, reason) = error { return reason }
        return nil
    }
}
