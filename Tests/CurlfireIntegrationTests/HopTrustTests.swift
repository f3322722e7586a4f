import Curlfire
import Foundation
import XCTest

/// Trust on every hop: a redirect to another host is evaluated with that host's own policy, and a
/// failure names the hop's host (httpbin over HTTPS on localhost and 127.0.0.1, different certificates).
final class HopTrustTests: XCTestCase {
    private var servers: TestServerSet!
    private var root: Certificate!

    override func setUpWithError() throws {
        servers = try Live.servers()
        root = try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))
    }

    /// XCTest never frees its test-case instances; the certificate is released here so that
    /// LeakSanitizer does not report it (`make sanitize-leaks`, docs/Reliability.md "Leaks").
    override func tearDown() {
        root = nil
    }

    private func session(_ policies: [String: ServerTrustPolicy]) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        return SessionManager(configuration: configuration,
                              serverTrustPolicyManager: ServerTrustPolicyManager(policies: policies))
    }

    /// The variant's port on 127.0.0.1 instead of localhost.
    private func onLoopbackAddress(_ variant: String) throws -> String {
        let url = try servers.https(variant)
        return "https://127.0.0.1:\(url.port ?? 443)"
    }

    private func redirect(from origin: String, to target: String) -> String {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return "\(origin)/redirect-to?url=\(encoded)"
    }

    func testThatARedirectToAnotherHostIsNotCoveredByTheFirstHostsDisabledEvaluation() async throws {
        let marker = Live.marker()
        let selfSigned = try onLoopbackAddress("selfsigned") + "/get?marker=\(marker)"
        let start = try servers.https("valid").absoluteString
        let session = session(["localhost": .disableEvaluation])
        let response = await session.request(redirect(from: start, to: selfSigned)).serializingData().response
        guard case let .serverTrustEvaluationFailed(host, reason)? = response.error else {
            return XCTFail("the self-signed 127.0.0.1 must be evaluated with its own (default) policy: \(response.debugDescription)")
        }
        XCTAssertEqual(host, "127.0.0.1", "the failure names the hop's host")
        guard case .chainInvalid = reason else { return XCTFail("\(reason)") }
        XCTAssertTrue(servers.accessLogLines("selfsigned", containing: marker, timeout: 1).isEmpty,
                      "the self-signed server never received the request")
    }

    func testThatARedirectToAPinnedHostIsCheckedAgainstThatHostsPin() async throws {
        let marker = Live.marker()
        let otherKey = try XCTUnwrap(try Certificate(contentsOf: servers.pkiFile("otherkey.pem")).publicKey)
        let pinned = try servers.https("valid").absoluteString + "/get?marker=\(marker)"   // https://localhost:PORT
        let start = try onLoopbackAddress("valid")                                       // https://127.0.0.1:PORT
        let session = session(["localhost": .pinPublicKeys(publicKeys: [otherKey], validateCertificateChain: true,
                                                           validateHost: true)])
        let response = await session.request(redirect(from: start, to: pinned)).serializingData().response
        guard case let .serverTrustEvaluationFailed(host, reason)? = response.error else {
            return XCTFail("localhost's pin must be checked on the hop to localhost: \(response.debugDescription)")
        }
        XCTAssertEqual(host, "localhost")
        XCTAssertEqual(reason, .publicKeyPinMismatch)
        XCTAssertTrue(servers.accessLogLines("valid", containing: "/get?marker=\(marker)", timeout: 1).isEmpty,
                      "the pinned hop was refused in its handshake (the first hop's log line carries the marker only encoded)")
    }

    func testThatEachHopPassingItsOwnPolicyArrives() async throws {
        let leafKey = try XCTUnwrap(try Certificate(contentsOf: servers.pkiFile("leaf.pem")).publicKey)
        let target = try servers.https("valid").absoluteString + "/get"
        let session = session(["localhost": .pinPublicKeys(publicKeys: [leafKey], validateCertificateChain: true,
                                                           validateHost: true)])
        let response = await session.request(redirect(from: try onLoopbackAddress("valid"), to: target))
            .validate().serializingData().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.url?.host, "localhost")
        XCTAssertEqual(response.metrics?.redirectCount, 1)
        XCTAssertEqual(response.allMetrics.count, 2, "one attempt per hop")
    }

    func testThatCredentialsAreNotSentToTheOtherHost() async throws {
        let target = try onLoopbackAddress("valid") + "/headers"
        let start = try servers.https("valid").absoluteString
        let response = await session([:]).request(redirect(from: start, to: target),
                                                  headers: ["Authorization": "Bearer secret"])
            .validate().serializingJSON().response
        let headers = (response.value as? [String: Any])?["headers"] as? [String: Any]
        XCTAssertNotNil(headers, response.debugDescription)
        XCTAssertNil(headers?["Authorization"], "Authorization never follows a redirect to another origin")
    }

    /// Gives the client identity to one host only.
    final class IdentityForOneHost: ServerTrustPolicyManager, @unchecked Sendable {
        let host: String
        let identity: ClientIdentity
        init(host: String, identity: ClientIdentity) {
            self.host = host
            self.identity = identity
            super.init(policies: [:])
        }
        override func clientIdentity(forHost host: String) -> ClientIdentity? { host == self.host ? identity : nil }
    }

    func testThatTheHopToAMutualTLSHostPresentsThatHostsIdentity() async throws {
        let identity = ClientIdentity(certificateChainFile: servers.pkiFile("client-chain.pem"),
                                      privateKeyFile: servers.pkiFile("client.key"))
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        let session = SessionManager(configuration: configuration,
                                     serverTrustPolicyManager: IdentityForOneHost(host: "127.0.0.1", identity: identity))
        let target = try onLoopbackAddress("mtls") + "/get"
        let start = try servers.https("valid").absoluteString
        let response = await session.request(redirect(from: start, to: target)).validate().serializingData().response
        XCTAssertNil(response.error, "127.0.0.1's identity is presented on the hop to 127.0.0.1: \(response.debugDescription)")
        XCTAssertEqual(response.response?.url?.host, "127.0.0.1")
        let direct = await session.request(try servers.https("mtls").absoluteString + "/get").serializingData().response
        XCTAssertEqual(direct.error?.transportErrorCode, .clientCertificateRejected,
                       "localhost is not given 127.0.0.1's identity: \(direct.debugDescription)")
    }
}
