import COpenSSL
import Foundation
import XCTest
@testable import Curlfire

/// The bridge inside real OpenSSL handshakes (in-process, over a BIO pair).
final class TLSTrustBridgeTests: XCTestCase {
    private let applicationVerification = Int(X509_V_ERR_APPLICATION_VERIFICATION)

    private func bridge(_ policy: ServerTrustPolicy?, roots: [String] = ["root-ca.pem"],
                        host: String = "localhost") throws -> TLSTrustBridge {
        TLSTrustBridge(host: host, policy: policy, trustedRoots: try roots.map { try TrustTestPKI.certificate($0) })
    }

    /// The recorded failure of the default loopback handshake, removing it.
    private func failure(_ bridge: TLSTrustBridge) -> CurlfireError.ServerTrustFailureReason? {
        bridge.takeFailure(forHandshake: TLSLoopback.defaultHandshake)
    }

    func testThatWithoutTheBridgeTheClientRejectsTheTestServer() throws {
        // Control: the client's own (empty) store does not trust the test root.
        let outcome = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key") { _ in }
        XCTAssertFalse(outcome.clientHandshakeSucceeded)
        XCTAssertEqual(outcome.clientVerifyResult, Int(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY))
    }

    func testThatDefaultEvaluationWithTrustedRootsAcceptsAValidServer() throws {
        for maxTLS12 in [false, true] {
            // Given
            let bridge = try bridge(nil)
            // When
            let outcome = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key",
                                                    through: bridge, maxTLS12: maxTLS12)
            TrustCaseCounter.add()
            // Then
            XCTAssertTrue(outcome.clientHandshakeSucceeded, "TLS 1.2 only: \(maxTLS12)")
            XCTAssertEqual(outcome.clientVerifyResult, Int(X509_V_OK))
            XCTAssertNil(failure(bridge))
            XCTAssertEqual(outcome.clientStoreObjectCount, 0, "the SSL_CTX's own store must stay untouched")
        }
    }

    func testThatAWrongHostIsRejectedWithTheReason() throws {
        for maxTLS12 in [false, true] {
            let bridge = try bridge(nil)
            let outcome = try TLSLoopback.handshake(serverChain: "wronghost-chain.pem", serverKey: "wronghost.key",
                                                    through: bridge, maxTLS12: maxTLS12)
            TrustCaseCounter.add()
            XCTAssertFalse(outcome.clientHandshakeSucceeded)
            XCTAssertEqual(outcome.clientVerifyResult, applicationVerification)
            XCTAssertEqual(failure(bridge), .hostMismatch)
        }
    }

    func testThatTheRecordFollowsTheMostRecentHandshakeOfAKey() throws {
        // Given
        let bridge = try bridge(.performDefaultEvaluation(validateHost: true))
        // When / Then
        _ = try TLSLoopback.handshake(serverChain: "expired-chain.pem", serverKey: "expired.key", through: bridge)
        XCTAssertEqual(failure(bridge), .certificateExpired)
        XCTAssertNil(failure(bridge), "taking the reason removes it")
        _ = try TLSLoopback.handshake(serverChain: "selfsigned.pem", serverKey: "selfsigned.key", through: bridge)
        let accepted = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key", through: bridge)
        XCTAssertTrue(accepted.clientHandshakeSucceeded)
        XCTAssertNil(failure(bridge), "an accepted handshake of the same key clears its earlier reason")
        _ = try TLSLoopback.handshake(serverChain: "selfsigned.pem", serverKey: "selfsigned.key", through: bridge)
        XCTAssertEqual(failure(bridge), .chainInvalid(verifyError: 18, message: "self-signed certificate"))
        XCTAssertEqual(bridge.failures.count, 0)
        TrustCaseCounter.add(4)
    }

    func testThatEachHandshakeKeepsItsOwnReason() throws {
        // Given: one bridge, three handshakes with different outcomes before anyone reads a verdict.
        let bridge = try bridge(.performDefaultEvaluation(validateHost: true))
        // When
        _ = try TLSLoopback.handshake(serverChain: "expired-chain.pem", serverKey: "expired.key", through: bridge,
                                      handshake: 1)
        _ = try TLSLoopback.handshake(serverChain: "wronghost-chain.pem", serverKey: "wronghost.key", through: bridge,
                                      handshake: 2)
        _ = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key", through: bridge, handshake: 3)
        TrustCaseCounter.add(3)
        // Then
        XCTAssertEqual(bridge.takeFailure(forHandshake: 1), .certificateExpired)
        XCTAssertEqual(bridge.takeFailure(forHandshake: 2), .hostMismatch)
        XCTAssertNil(bridge.takeFailure(forHandshake: 3))
        XCTAssertEqual(bridge.failures.count, 0)
    }

    func testThatTheHandshakeKeyTravelsOnTheSSLContextAndIsReadBackFromTheStoreContext() throws {
        // Given: the key stored where install puts it, and a verification outside any handshake.
        let context = try XCTUnwrap(SSL_CTX_new(TLS_client_method()))
        defer { SSL_CTX_free(context) }
        let ssl = try XCTUnwrap(SSL_new(context))
        defer { SSL_free(ssl) }
        // When
        XCTAssertTrue(HandshakeKey.attach(0xDEAD_BEEF, to: context))
        // Then
        XCTAssertEqual(HandshakeKey.key(ofSSL: ssl), 0xDEAD_BEEF)
        let outside = TLSLoopback.withStoreContext(presenting: try PresentedChain.valid.certificates()) {
            HandshakeKey.key(ofStoreContext: $0)
        }
        XCTAssertEqual(outside, .some(nil), "a store context outside a handshake has no key")
    }

    func testThatDisabledEvaluationAcceptsASelfSignedServer() throws {
        let bridge = try bridge(.disableEvaluation, roots: [])
        let outcome = try TLSLoopback.handshake(serverChain: "selfsigned.pem", serverKey: "selfsigned.key", through: bridge)
        TrustCaseCounter.add()
        XCTAssertTrue(outcome.clientHandshakeSucceeded)
        XCTAssertEqual(outcome.clientVerifyResult, Int(X509_V_OK))
        XCTAssertNil(failure(bridge))
    }

    func testThatSystemRootsRejectTheTestRootUnlessAPinAcceptsIt() throws {
        // Given: no trusted roots, so the system roots are the anchors.
        let rootKey = try XCTUnwrap(TrustTestPKI.certificate("root-ca.pem").publicKey)
        let leafKey = try XCTUnwrap(TrustTestPKI.certificate("leaf.pem").publicKey)
        let chained = try bridge(.pinPublicKeys(publicKeys: [rootKey], validateCertificateChain: true, validateHost: true),
                                 roots: [])
        let unchained = try bridge(.pinPublicKeys(publicKeys: [leafKey], validateCertificateChain: false,
                                                  validateHost: true), roots: [])
        // When
        let rejected = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key", through: chained)
        let accepted = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key", through: unchained)
        TrustCaseCounter.add(2)
        // Then
        XCTAssertFalse(rejected.clientHandshakeSucceeded)
        XCTAssertEqual(failure(chained), .chainInvalid(verifyError: 20, message: "unable to get local issuer certificate"))
        XCTAssertTrue(accepted.clientHandshakeSucceeded)
        XCTAssertNil(failure(unchained))
    }

    func testThatTheCallbackSeesThePresentedChainOnceLeafFirst() throws {
        // Given
        let seen = LockedBox<[String]>([])
        let bridge = try bridge(.customEvaluation { trust, host in
            seen.set(trust.certificates.map(\.subjectSummary) + [host])
            return false
        })
        // When
        let outcome = try TLSLoopback.handshake(serverChain: "leaf-chain.pem", serverKey: "leaf.key", through: bridge)
        TrustCaseCounter.add()
        // Then
        XCTAssertFalse(outcome.clientHandshakeSucceeded)
        XCTAssertEqual(failure(bridge), .customEvaluationRejected)
        XCTAssertEqual(seen.get(), ["CN=localhost,O=Curlfire Test", "CN=Curlfire Test Intermediate CA,O=Curlfire Test",
                                    "localhost"])
    }

    func testThatTheBridgeAsksForStapledOCSPOnlyWhenThePolicyRequiresIt() throws {
        XCTAssertTrue(try bridge(.performRevokedEvaluation(validateHost: true, revocationFlags: .requireStapledOCSP))
            .requiresStapledOCSP)
        XCTAssertFalse(try bridge(.performRevokedEvaluation(validateHost: true, revocationFlags: .crl)).requiresStapledOCSP)
        XCTAssertFalse(try bridge(nil).requiresStapledOCSP)
    }

    func testThatTheVerifyCallbackBodySetsTheStoreContextResult() throws {
        let bridge = try bridge(nil)
        let valid = try PresentedChain.valid.certificates()
        let wrong = try PresentedChain.wrongHost.certificates()
        let accepted = TLSLoopback.withStoreContext(presenting: valid) { context in
            // An error left by earlier verification (libcurl re-reads it) must be cleared on accept.
            X509_STORE_CTX_set_error(context, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT)
            return (bridge.verify(context), X509_STORE_CTX_get_error(context))
        }
        XCTAssertEqual(accepted?.0, 1)
        XCTAssertEqual(accepted?.1, X509_V_OK)
        let rejected = TLSLoopback.withStoreContext(presenting: wrong) { context in
            (bridge.verify(context), X509_STORE_CTX_get_error(context))
        }
        XCTAssertEqual(rejected?.0, 0)
        XCTAssertEqual(rejected?.1, X509_V_ERR_APPLICATION_VERIFICATION)
        TrustCaseCounter.add(2)
    }
}
