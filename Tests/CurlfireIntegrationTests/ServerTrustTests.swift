import Curlfire
import Foundation
import XCTest

/// Trust policies evaluated inside real TLS handshakes against httpbin over HTTPS, one server per
/// certificate of the test PKI.
final class ServerTrustTests: XCTestCase {
    private var servers: TestServerSet!
    private var root: Certificate!
    private var intermediate: Certificate!
    private var leaf: Certificate!

    override func setUpWithError() throws {
        servers = try Live.servers()
        root = try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))
        intermediate = try Certificate(contentsOf: servers.pkiFile("intermediate-ca.pem"))
        leaf = try Certificate(contentsOf: servers.pkiFile("leaf.pem"))
    }

    /// XCTest never frees its test-case instances; their certificates are released here so that
    /// LeakSanitizer does not report them (`make sanitize-leaks`, docs/Reliability.md "Leaks").
    override func tearDown() {
        (root, intermediate, leaf) = (nil, nil, nil)
    }

    /// A session trusting the test root, with optional policies.
    private func session(policies: [String: ServerTrustPolicy]? = nil, trustRoot: Bool = true,
                         configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionManager {
        var configuration = SessionConfiguration()
        if trustRoot { configuration.trustedRootCertificates = [root] }
        configure(&configuration)
        return SessionManager(configuration: configuration,
                              serverTrustPolicyManager: policies.map(ServerTrustPolicyManager.init(policies:)))
    }

    private func get(_ session: SessionManager, _ variant: String, marker: String = "x",
                     file: StaticString = #filePath, line: UInt = #line) async throws -> DataResponse<Data> {
        let url = try servers.https(variant).absoluteString + "/get?marker=\(marker)"
        return await session.request(url).validate().serializingData().response
    }

    private func trustReason(_ response: DataResponse<Data>) -> CurlfireError.ServerTrustFailureReason? {
        if case let .serverTrustEvaluationFailed(_, reason)? = response.error { return reason }
        return nil
    }

    // MARK: - Default evaluation

    func testThatTheSystemRootsRejectThePrivatePKIWithATypedReason() async throws {
        let response = try await get(session(trustRoot: false), "valid")
        guard case .chainInvalid? = trustReason(response) else { return XCTFail(response.debugDescription) }
    }

    func testThatDefaultEvaluationWithTheTestRootPassesAndFailsAsTheMatrixSays() async throws {
        let session = session()
        let expectations: [(String, Bool)] = [
            ("valid", true), ("otherkey", true), ("revoked", true), // no revocation check by default
            ("leafonly", false), ("expired", false), ("wronghost", false), ("selfsigned", false),
        ]
        for (variant, passes) in expectations {
            let response = try await get(session, variant)
            XCTAssertEqual(response.result.isSuccess, passes, "\(variant): \(response.debugDescription)")
        }
        let expired = try await get(session, "expired")
        XCTAssertEqual(trustReason(expired), .certificateExpired)
        let wrongHost = try await get(session, "wronghost")
        XCTAssertEqual(trustReason(wrongHost), .hostMismatch)
        let valid = try await get(session, "valid")
        XCTAssertEqual(valid.metrics?.tlsVersion, "TLSv1.3")
        XCTAssertNotNil(valid.metrics?.tlsCipher)
    }

    func testThatDefaultEvaluationWithoutHostValidationAcceptsTheWrongHost() async throws {
        let response = try await get(session(policies: ["localhost": .performDefaultEvaluation(validateHost: false)]), "wronghost")
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
    }

    func testThatRevokedEvaluationWithTheCRLRejectsTheRevokedLeaf() async throws {
        let lists = CertificateRevocationList.revocationLists(fromPEM: try Data(contentsOf: servers.pkiFile("crl.pem")))
        XCTAssertFalse(lists.isEmpty)
        let policy = ServerTrustPolicy.performRevokedEvaluation(validateHost: true,
                                                                revocationFlags: [.crl(lists), .crlCheckWholeChain])
        let revoked = try await get(session(policies: ["localhost": policy]), "revoked")
        guard case .revoked? = trustReason(revoked) else { return XCTFail(revoked.debugDescription) }
        let valid = try await get(session(policies: ["localhost": policy]), "valid")
        XCTAssertTrue(valid.result.isSuccess, valid.debugDescription)
    }

    // MARK: - Pinning

    func testThatPinningTheLeafIntermediateOrRootKeyPasses() async throws {
        for certificate in [leaf!, intermediate!, root!] {
            let key = try XCTUnwrap(certificate.publicKey)
            for validateChain in [true, false] where !(certificate == root && !validateChain) {
                let policy = ServerTrustPolicy.pinPublicKeys(publicKeys: [key], validateCertificateChain: validateChain,
                                                             validateHost: true)
                let response = try await get(session(policies: ["localhost": policy]), "valid")
                XCTAssertTrue(response.result.isSuccess, "\(certificate.subjectSummary) chain=\(validateChain): \(response.debugDescription)")
            }
        }
    }

    func testThatTheOtherKeyServerFailsTheLeafPinAndNeverSeesTheRequest() async throws {
        let policy = ServerTrustPolicy.pinPublicKeys(publicKeys: [try XCTUnwrap(leaf.publicKey)], validateCertificateChain: true,
                                                     validateHost: true)
        let marker = Live.marker()
        let response = try await get(session(policies: ["localhost": policy]), "otherkey", marker: marker)
        XCTAssertEqual(trustReason(response), .publicKeyPinMismatch, response.debugDescription)
        XCTAssertTrue(servers.accessLogLines("otherkey", containing: marker, timeout: 1).isEmpty,
                      "a rejected server receives no request byte")
    }

    func testThatPinningCertificatesPassesForThePinnedChainAndFailsOtherwise() async throws {
        let pinnedRoot = ServerTrustPolicy.pinCertificates(certificates: [root], validateCertificateChain: true, validateHost: true)
        let ok = try await get(session(policies: ["localhost": pinnedRoot], trustRoot: false), "valid")
        XCTAssertTrue(ok.result.isSuccess, ok.debugDescription)
        let pinnedLeaf = ServerTrustPolicy.pinCertificates(certificates: [leaf], validateCertificateChain: false, validateHost: true)
        let other = try await get(session(policies: ["localhost": pinnedLeaf], trustRoot: false), "otherkey")
        XCTAssertEqual(trustReason(other), .certificatePinMismatch, other.debugDescription)
    }

    func testThatACAPinWithoutChainValidationRejectsASpoofingServerBeforeAnyRequestByte() async throws {
        // The spoofing server presents its own self-signed leaf, then the genuine intermediate and root.
        let intermediateKey = try XCTUnwrap(intermediate.publicKey), rootKey = try XCTUnwrap(root.publicKey)
        let cases: [(ServerTrustPolicy, CurlfireError.ServerTrustFailureReason, genuinePasses: Bool)] = [
            (.pinPublicKeys(publicKeys: [intermediateKey], validateCertificateChain: false, validateHost: true),
             .publicKeyPinMismatch, true),
            (.pinPublicKeys(publicKeys: [rootKey], validateCertificateChain: false, validateHost: true),
             .publicKeyPinMismatch, false),  // the genuine server does not send the root
            (.pinCertificates(certificates: [intermediate], validateCertificateChain: false, validateHost: true),
             .certificatePinMismatch, true),
            (.pinCertificates(certificates: [root], validateCertificateChain: false, validateHost: true),
             .certificatePinMismatch, false),
        ]
        let marker = Live.marker()
        for (policy, reason, genuinePasses) in cases {
            let spoofed = try await get(session(policies: ["localhost": policy], trustRoot: false), "spoof", marker: marker)
            guard case let .serverTrustEvaluationFailed(host, actual)? = spoofed.error else {
                XCTFail("the spoofing server must be rejected: \(spoofed.debugDescription)")
                continue
            }
            XCTAssertEqual(host, "localhost")
            XCTAssertEqual(actual, reason)
            XCTAssertNil(spoofed.response)
            if genuinePasses {
                let genuine = try await get(session(policies: ["localhost": policy], trustRoot: false), "valid")
                XCTAssertTrue(genuine.result.isSuccess, genuine.debugDescription)
            }
        }
        XCTAssertTrue(servers.accessLogLines("spoof", containing: marker, timeout: 1).isEmpty,
                      "a rejected server receives no request byte")
    }

    // MARK: - Disable and custom

    func testThatDisableEvaluationReachesTheSelfSignedServer() async throws {
        let response = try await get(session(policies: ["localhost": .disableEvaluation], trustRoot: false), "selfsigned")
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
    }

    func testThatCustomEvaluationSeesTheChainAndItsVerdictCounts() async throws {
        let seen = Recorder<Int>()
        let accept = ServerTrustPolicy.customEvaluation { trust, host in
            seen.append(trust.certificates.count)
            return host == "localhost"
        }
        let response = try await get(session(policies: ["localhost": accept], trustRoot: false), "valid")
        XCTAssertTrue(response.result.isSuccess, response.debugDescription)
        XCTAssertEqual(seen.all.first, 2, "leaf and intermediate were presented")
        let reject = ServerTrustPolicy.customEvaluation { _, _ in false }
        let rejected = try await get(session(policies: ["localhost": reject]), "valid")
        XCTAssertEqual(trustReason(rejected), .customEvaluationRejected)
    }

    // MARK: - Policy isolation: reuse and resumption

    func testThatAHostsPolicyIsNotBypassedByConnectionReuseOrTLSResumption() async throws {
        // localhost and 127.0.0.1 reach the same server; the leaf names both.
        let reject = ServerTrustPolicy.customEvaluation { _, _ in false }
        let session = session(policies: ["localhost": .disableEvaluation, "127.0.0.1": reject])
        let port = try servers.https("valid").port!
        let marker = Live.marker()
        let first = await session.request("https://localhost:\(port)/get").serializingData().response
        XCTAssertTrue(first.result.isSuccess, first.debugDescription)
        let other = await session.request("https://127.0.0.1:\(port)/get?marker=\(marker)").serializingData().response
        XCTAssertEqual(trustReason(other), .customEvaluationRejected, other.debugDescription)
        let again = await session.request("https://localhost:\(port)/get").serializingData().response
        XCTAssertTrue(again.result.isSuccess)
        XCTAssertEqual(again.metrics?.isReusedConnection, true)
        XCTAssertTrue(servers.accessLogLines("valid", containing: marker, timeout: 1).isEmpty)
        // A second session never inherits the first one's connections or TLS sessions.
        let strict = await SessionManager(configuration: SessionConfiguration(),
                                          serverTrustPolicyManager: ServerTrustPolicyManager(policies: ["localhost": reject]))
            .request("https://localhost:\(port)/get").serializingData().response
        XCTAssertEqual(trustReason(strict), .customEvaluationRejected)
    }

    func testThatAHostsPolicyIsFixedAtFirstUse() async throws {
        final class Flipping: ServerTrustPolicyManager, @unchecked Sendable {
            let asked = Recorder<String>()
            override func serverTrustPolicy(forHost host: String) -> ServerTrustPolicy? {
                asked.append(host)
                return asked.all.count == 1 ? .disableEvaluation : .customEvaluation { _, _ in false }
            }
        }
        let manager = Flipping(policies: [:])
        let session = SessionManager(serverTrustPolicyManager: manager)
        for _ in 0..<3 {
            let response = try await get(session, "selfsigned")
            XCTAssertTrue(response.result.isSuccess, response.debugDescription)
        }
        XCTAssertEqual(manager.asked.all, ["localhost"], "asked once per host for the session's life")
    }

    func testThatWildcardKeysMapOneLabelLive() async throws {
        let rootKey = try XCTUnwrap(root.publicKey)
        let pin = ServerTrustPolicy.pinPublicKeys(publicKeys: [rootKey], validateCertificateChain: true, validateHost: false)
        let session = session(policies: ["*.curlfire.test": pin]) { $0.connectTo = ["api.curlfire.test": "127.0.0.1",
                                                                                       "a.b.curlfire.test": "127.0.0.1"] }
        let port = try servers.https("valid").port!
        let matched = await session.request("https://api.curlfire.test:\(port)/get").serializingData().response
        XCTAssertTrue(matched.result.isSuccess, "one label matches the wildcard: \(matched.debugDescription)")
        let unmatched = await session.request("https://a.b.curlfire.test:\(port)/get").serializingData().response
        XCTAssertEqual(trustReason(unmatched), .hostMismatch, "two labels fall back to default evaluation")
    }

    // MARK: - Mutual TLS

    func testThatMutualTLSFailsWithoutAndPassesWithAClientCertificate() async throws {
        let without = try await get(session(), "mtls")
        XCTAssertEqual(without.error?.transportErrorCode, .clientCertificateRejected, without.debugDescription)
        XCTAssertNil(without.response)
        let pem = try await get(session { $0.clientIdentity = ClientIdentity(certificateChainFile: self.servers.pkiFile("client-chain.pem"),
                                                                             privateKeyFile: self.servers.pkiFile("client.key")) }, "mtls")
        XCTAssertTrue(pem.result.isSuccess, pem.debugDescription)
        let p12 = try await get(session { $0.clientIdentity = ClientIdentity(pkcs12File: self.servers.pkiFile("client.p12"),
                                                                             password: "curlfire") }, "mtls")
        XCTAssertTrue(p12.result.isSuccess, p12.debugDescription)
    }

    func testThatHTTP2IsNegotiatedOverTLSWithNginx() async throws {
        let nginx = try XCTUnwrap(servers.nginxHTTPS)
        let response = await session().request(nginx.absoluteString + "/small.txt").validate().serializingData().response
        XCTAssertEqual(response.metrics?.httpVersion, "HTTP/2", response.debugDescription)
    }
}
