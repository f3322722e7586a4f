import Foundation
import XCTest
@testable import Curlfire

/// Stapled OCSP responses (made with `openssl ocsp` by make-test-pki.sh, signed by the intermediate)
/// checked offline through ``ServerTrust/stapledOCSPResponse`` and inside in-process handshakes.
final class StapledOCSPTests: XCTestCase {
    private typealias Message = StapledOCSPVerifier.Message
    private let policy = ServerTrustPolicy.performRevokedEvaluation(validateHost: true,
                                                                    revocationFlags: .requireStapledOCSP)

    private func response(_ name: String) throws -> Data { try Data(contentsOf: TrustTestPKI.url(name)) }

    /// Evaluates `policy` for `chain` with a stapled `response` against the test root.
    private func evaluate(
        _ chain: PresentedChain, stapling response: Data?, date: Date? = nil, anchors: [Certificate]? = nil
    ) throws -> Expected {
        let trust = ServerTrust(certificates: try chain.certificates(),
                                anchorCertificates: try anchors ?? [TrustTestPKI.certificate("root-ca.pem")],
                                verificationDate: try date ?? matrixDate(), stapledOCSPResponse: response)
        TrustCaseCounter.add()
        let result = Expected(policy.evaluation(trust, forHost: "localhost"))
        XCTAssertEqual(policy.evaluate(trust, forHost: "localhost"), result == .accepted)
        return result
    }

    // MARK: - Offline

    func testThatAGoodResponseFromTheIssuerIsAccepted() throws {
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-good.der")), .accepted)
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-good.der"), date: Date()), .accepted, "now")
    }

    func testThatARevokedResponseRejectsTheRevokedLeaf() throws {
        XCTAssertEqual(try evaluate(.revoked, stapling: response("ocsp-revoked.der")),
                       .rejected(.revoked(message: Message.revoked + ", reason: keyCompromise")))
    }

    func testThatAResponseSignedWithAnotherKeyIsRejected() throws {
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-wrongkey.der")),
                       .rejected(.revoked(message: Message.badSignature)))
    }

    func testThatADelegatedResponderMustCarryTheOCSPSigningUsage() throws {
        // Both signers were issued by the intermediate; only the first has the OCSPSigning extended key usage.
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-delegated.der")), .accepted)
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-undelegated.der")),
                       .rejected(.revoked(message: Message.unauthorisedSigner)))
    }

    func testThatAnExpiredResponseIsRejected() throws {
        // nextUpdate is one minute after thisUpdate (≈ the leaf's notBefore); the matrix date is a day later.
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-short.der")),
                       .rejected(.revoked(message: Message.expired)))
        let leaf = try TrustTestPKI.certificate("leaf.pem")
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-short.der"),
                                    date: leaf.notValidBefore.addingTimeInterval(60)), .accepted, "within its validity")
    }

    func testThatAGoodResponseAfterItsNextUpdateIsRejectedButAcceptedWithinTheLeeway() throws {
        // The one-minute response was made within a second or so of the leaf: its nextUpdate is about the
        // leaf's notBefore + 60 s. Two minutes inside the leeway passes, two minutes beyond it does not.
        let leaf = try TrustTestPKI.certificate("leaf.pem")
        let approximateNextUpdate = leaf.notValidBefore.addingTimeInterval(60)
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-short.der"),
                                    date: approximateNextUpdate.addingTimeInterval(StapledOCSPVerifier.leeway - 120)),
                       .accepted)
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-short.der"),
                                    date: approximateNextUpdate.addingTimeInterval(StapledOCSPVerifier.leeway + 120)),
                       .rejected(.revoked(message: Message.expired)))
    }

    func testThatAnUnknownStatusIsRejected() throws {
        XCTAssertEqual(try evaluate(.valid, stapling: response("ocsp-unknown.der")),
                       .rejected(.revoked(message: Message.unknown)))
    }

    func testThatAResponseForAnotherCertificateIsRejected() throws {
        XCTAssertEqual(try evaluate(.revoked, stapling: response("ocsp-good.der")),
                       .rejected(.revoked(message: Message.notForCertificate)))
    }

    func testThatNoOrMalformedResponsesAreRejectedWithoutCrashing() throws {
        XCTAssertEqual(try evaluate(.valid, stapling: nil), .rejected(.revoked(message: Message.missing)))
        XCTAssertEqual(try evaluate(.valid, stapling: Data()), .rejected(.revoked(message: Message.missing)))
        let good = try response("ocsp-good.der")
        for bytes in [Data([0x30, 0x03, 0x0A, 0x01, 0x00]), Data([0x01, 0x02, 0x03]), good.prefix(good.count / 2),
                      Data(repeating: 0x30, count: 64)] {
            guard case .rejected(.revoked) = try evaluate(.valid, stapling: bytes) else {
                return XCTFail("\(bytes as NSData) must be rejected as revocation failure")
            }
        }
    }

    func testThatTheChainIsVerifiedBeforeTheStapledResponseAndTheHostAfterIt() throws {
        XCTAssertEqual(try evaluate(.selfSigned, stapling: response("ocsp-good.der")), .selfSignedLeaf)
        XCTAssertEqual(try evaluate(.wrongHost, stapling: response("ocsp-good.der")), .wrongHost)
        // A leaf that is its own anchor has no issuer to check the response against.
        let selfSigned = try TrustTestPKI.certificate("selfsigned.pem")
        XCTAssertEqual(try evaluate(.selfSigned, stapling: response("ocsp-good.der"), anchors: [selfSigned]),
                       .rejected(.revoked(message: Message.noIssuer)))
    }

    // MARK: - In a handshake (TLS 1.2 and 1.3)

    private func handshake(
        _ chain: String, _ key: String, stapling response: String?, maxTLS12: Bool
    ) throws -> (succeeded: Bool, reason: CurlfireError.ServerTrustFailureReason?) {
        let bridge = TLSTrustBridge(host: "localhost", policy: policy,
                                    trustedRoots: [try TrustTestPKI.certificate("root-ca.pem")])
        let outcome = try TLSLoopback.handshake(serverChain: chain, serverKey: key, through: bridge,
                                                maxTLS12: maxTLS12, stapling: response, handshake: 7)
        TrustCaseCounter.add()
        defer { XCTAssertEqual(bridge.failures.count, 0, "nothing stale remains") }
        return (outcome.clientHandshakeSucceeded, bridge.takeFailure(forHandshake: 7))
    }

    func testThatTheHandshakeChecksTheStapledResponseWithTheSessionsRoots() throws {
        for maxTLS12 in [false, true] {
            let good = try handshake("leaf-chain.pem", "leaf.key", stapling: "ocsp-good.der", maxTLS12: maxTLS12)
            XCTAssertTrue(good.succeeded, "TLS 1.2 only: \(maxTLS12)")
            XCTAssertNil(good.reason)
            let revoked = try handshake("revoked-chain.pem", "revoked.key", stapling: "ocsp-revoked.der",
                                        maxTLS12: maxTLS12)
            XCTAssertFalse(revoked.succeeded)
            XCTAssertEqual(revoked.reason, .revoked(message: Message.revoked + ", reason: keyCompromise"))
            let missing = try handshake("leaf-chain.pem", "leaf.key", stapling: nil, maxTLS12: maxTLS12)
            XCTAssertFalse(missing.succeeded)
            XCTAssertEqual(missing.reason, .revoked(message: Message.missing))
            let forged = try handshake("leaf-chain.pem", "leaf.key", stapling: "ocsp-wrongkey.der", maxTLS12: maxTLS12)
            XCTAssertFalse(forged.succeeded)
            XCTAssertEqual(forged.reason, .revoked(message: Message.badSignature))
        }
    }

    func testThatAChainRejectedInTheHandshakeKeepsItsOwnReasonDespiteAGoodStaple() throws {
        let expired = try handshake("expired-chain.pem", "expired.key", stapling: "ocsp-good.der", maxTLS12: false)
        XCTAssertFalse(expired.succeeded)
        XCTAssertEqual(expired.reason, .certificateExpired)
    }
}
