import Foundation
import XCTest
@testable import Curlfire

/// Evaluation beyond the matrix: dates, hosts, anchors, revocation variants.
final class ServerTrustEvaluationTests: XCTestCase {
    private let strict = ServerTrustPolicy.performDefaultEvaluation(validateHost: true)

    // MARK: - Dates

    func testThatAValidChainIsRejectedAfterTheLeafExpires() throws {
        // Given
        let chain = try PresentedChain.valid.certificates()
        let afterExpiry = chain[0].notValidAfter.addingTimeInterval(86_400)
        // When / Then
        XCTAssertEqual(try outcome(strict, chain, date: afterExpiry), .expiredCertificate)
    }

    func testThatAChainIsRejectedBeforeItIsValid() throws {
        let chain = try PresentedChain.valid.certificates()
        let beforeValidity = try TrustTestPKI.certificate("root-ca.pem").notValidBefore.addingTimeInterval(-86_400)
        XCTAssertEqual(try outcome(strict, chain, date: beforeValidity), .rejected(.certificateNotYetValid))
    }

    func testThatTheExpiredLeafWithinItsOwnValidityIsRejectedBecauseItsRootIsNotYetValid() throws {
        // The expired leaf was valid in 2020, before the test root existed.
        let chain = try PresentedChain.expired.certificates()
        let inside = chain[0].notValidBefore.addingTimeInterval(86_400)
        XCTAssertEqual(try outcome(strict, chain, date: inside), .rejected(.certificateNotYetValid))
    }

    // MARK: - Hosts

    func testThatIPAddressesAndCaseAreMatched() throws {
        let chain = try PresentedChain.valid.certificates()
        for host in ["127.0.0.1", "::1", "[::1]", "LOCALHOST", "localhost."] {
            XCTAssertEqual(try outcome(strict, chain, host: host), .accepted, host)
        }
        for host in ["127.0.0.2", "::2", "otherhost", "local", "", "localhost.localdomain"] {
            XCTAssertEqual(try outcome(strict, chain, host: host), .wrongHost, host)
        }
    }

    func testThatAWildcardMatchesExactlyOneLabel() throws {
        let chain = try TrustTestPKI.chain("wildcard-chain.pem")
        for host in ["a.curlfire.test", "API.Curlfire.Test"] {
            XCTAssertEqual(try outcome(strict, chain, host: host), .accepted, host)
        }
        for host in ["curlfire.test", "a.b.curlfire.test", "acurlfire.test", "localhost"] {
            XCTAssertEqual(try outcome(strict, chain, host: host), .wrongHost, host)
        }
    }

    // MARK: - Anchors

    func testThatTheSystemRootsDoNotTrustTheTestRoot() throws {
        let trust = ServerTrust(certificates: try PresentedChain.valid.certificates(), verificationDate: try matrixDate())
        TrustCaseCounter.add()
        XCTAssertEqual(Expected(strict.evaluation(trust, forHost: "localhost")), .unableToGetLocalIssuer)
    }

    func testThatASelfSignedCertificateAsItsOwnAnchorIsAccepted() throws {
        let selfSigned = try TrustTestPKI.certificate("selfsigned.pem")
        XCTAssertEqual(try outcome(strict, [selfSigned], anchors: [selfSigned]), .accepted)
    }

    func testThatAnIntermediateAnchorIsEnoughForAPartialChain() throws {
        let intermediate = try TrustTestPKI.certificate("intermediate-ca.pem")
        XCTAssertEqual(try outcome(strict, PresentedChain.missingIntermediate.certificates(), anchors: [intermediate]),
                       .accepted)
    }

    func testThatAnUnrelatedRootTrustsNothing() throws {
        let other = try TrustTestPKI.certificate("other-root-ca.pem")
        XCTAssertEqual(try outcome(strict, PresentedChain.valid.certificates(), anchors: [other]), .unableToGetLocalIssuer)
        XCTAssertEqual(try outcome(strict, PresentedChain.valid.certificates(), anchors: []), .unableToGetLocalIssuer)
    }

    func testThatAClientCertificateIsNotAcceptedAsAServer() throws {
        // The client certificate has only the clientAuth extended key usage.
        let result = try outcome(.performDefaultEvaluation(validateHost: false), TrustTestPKI.chain("client-chain.pem"))
        XCTAssertEqual(result, .rejected(.chainInvalid(verifyError: 26, message: "unsuitable certificate purpose")))
    }

    // MARK: - Revocation variants

    func testThatLeafOnlyCRLCheckingToleratesAMissingRootCRLButWholeChainNeedsIt() throws {
        // Given: only the intermediate's CRL.
        let intermediateCRL = try TrustTestPKI.revocationLists().filter { $0.issuerSummary.contains("Intermediate") }
        XCTAssertEqual(intermediateCRL.count, 1)
        let chain = try PresentedChain.valid.certificates()
        // When / Then
        let leafOnly = ServerTrustPolicy.performRevokedEvaluation(
            validateHost: true, revocationFlags: [.crl(intermediateCRL), .requirePositiveResponse])
        XCTAssertEqual(try outcome(leafOnly, chain), .accepted)
        let wholeChain = ServerTrustPolicy.performRevokedEvaluation(
            validateHost: true, revocationFlags: [.crl(intermediateCRL), .crlCheckWholeChain, .requirePositiveResponse])
        XCTAssertEqual(try outcome(wholeChain, chain), .rejected(.revoked(message: "unable to get certificate CRL")))
        let softWholeChain = ServerTrustPolicy.performRevokedEvaluation(
            validateHost: true, revocationFlags: [.crl(intermediateCRL), .crlCheckWholeChain])
        XCTAssertEqual(try outcome(softWholeChain, chain), .accepted)
    }

    func testThatNoCRLsSoftFailsUnlessAPositiveResponseIsRequired() throws {
        let revoked = try PresentedChain.revoked.certificates()
        let soft = ServerTrustPolicy.performRevokedEvaluation(validateHost: true, revocationFlags: [])
        XCTAssertEqual(try outcome(soft, revoked), .accepted)
        let hard = ServerTrustPolicy.performRevokedEvaluation(validateHost: true, revocationFlags: .requirePositiveResponse)
        XCTAssertEqual(try outcome(hard, revoked), .rejected(.revoked(message: "unable to get certificate CRL")))
    }

    func testThatACRLIsNotYetValidBeforeItWasIssued() throws {
        // Given: a day before the CRLs were issued (OpenSSL checks revocation before validity periods).
        let policy = ServerTrustPolicy.performRevokedEvaluation(
            validateHost: true, revocationFlags: [.crl(try TrustTestPKI.revocationLists()), .requirePositiveResponse])
        let crl = try XCTUnwrap(TrustTestPKI.revocationLists().first)
        let early = crl.lastUpdate.addingTimeInterval(-86_400)
        // When / Then
        XCTAssertEqual(try outcome(policy, PresentedChain.valid.certificates(), date: early),
                       .rejected(.revoked(message: "CRL is not yet valid")))
    }

    func testThatRequiringAStapledOCSPResponseFailsWithoutOne() throws {
        let policy = ServerTrustPolicy.performRevokedEvaluation(validateHost: true, revocationFlags: .requireStapledOCSP)
        XCTAssertEqual(try outcome(policy, PresentedChain.valid.certificates()),
                       .rejected(.revoked(message: "the server stapled no OCSP response")))
        // When the handshake checks the stapled response itself, the chain is evaluated as usual.
        var trust = ServerTrust(certificates: try PresentedChain.valid.certificates(),
                                anchorCertificates: [try TrustTestPKI.certificate("root-ca.pem")],
                                verificationDate: try matrixDate())
        trust.stapledOCSPCheckedByHandshake = true
        TrustCaseCounter.add()
        XCTAssertTrue(policy.evaluate(trust, forHost: "localhost"))
    }
}
