import Foundation
import XCTest
@testable import Curlfire

/// Every policy × every presented chain, evaluated against the test root at a fixed date, with the
/// expected outcome and reason (the offline matrix of Alamofire 4's trust tests).
final class ServerTrustPolicyMatrixTests: XCTestCase {
    private func leaf() throws -> Certificate { try TrustTestPKI.certificate("leaf.pem") }
    private func intermediate() throws -> Certificate { try TrustTestPKI.certificate("intermediate-ca.pem") }
    private func root() throws -> Certificate { try TrustTestPKI.certificate("root-ca.pem") }
    private func key(_ certificate: Certificate) throws -> PublicKey { try XCTUnwrap(certificate.publicKey) }

    // MARK: - Default and revoked evaluation

    func testThatDefaultEvaluationWithHostValidationChecksChainAndHost() throws {
        try assertMatrix(.performDefaultEvaluation(validateHost: true), [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .wrongHost,
            .selfSigned: .selfSignedLeaf, .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    func testThatDefaultEvaluationWithoutHostValidationIgnoresTheHost() throws {
        try assertMatrix(.performDefaultEvaluation(validateHost: false), [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .accepted,
            .selfSigned: .selfSignedLeaf, .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    func testThatRevokedEvaluationWithWholeChainCRLsRejectsTheRevokedLeaf() throws {
        let flags: RevocationFlags = [.crl(try TrustTestPKI.revocationLists()), .crlCheckWholeChain,
                                      .requirePositiveResponse]
        try assertMatrix(.performRevokedEvaluation(validateHost: true, revocationFlags: flags), [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .wrongHost,
            .selfSigned: .selfSignedLeaf, .otherKey: .accepted, .revoked: .revokedCertificate,
        ])
    }

    func testThatRevokedEvaluationWithoutHostValidationStillRejectsTheRevokedLeaf() throws {
        let flags = RevocationFlags.crl(try TrustTestPKI.revocationLists())
        try assertMatrix(.performRevokedEvaluation(validateHost: false, revocationFlags: flags), [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .accepted,
            .selfSigned: .selfSignedLeaf, .otherKey: .accepted, .revoked: .revokedCertificate,
        ])
    }

    // MARK: - Certificate pinning with chain validation

    func testThatPinnedLeafWithChainValidationAcceptsOnlyThatLeaf() throws {
        let pinned = try leaf()
        try assertMatrix(.pinCertificates(certificates: [pinned], validateCertificateChain: true, validateHost: true), [
            .valid: .accepted, .missingIntermediate: .accepted, .wrongIntermediate: .accepted,
            .expired: .certificatePin, .wrongHost: .certificatePin, .selfSigned: .certificatePin,
            .otherKey: .certificatePin, .revoked: .certificatePin,
        ])
    }

    func testThatPinnedIntermediateWithChainValidationAcceptsWhatItIssued() throws {
        let pinned = try intermediate()
        let policy = ServerTrustPolicy.pinCertificates(certificates: [pinned], validateCertificateChain: true,
                                                       validateHost: true)
        try assertMatrix(policy, [
            .valid: .accepted, .missingIntermediate: .accepted, .wrongIntermediate: .accepted,
            .expired: .expiredCertificate, .wrongHost: .wrongHost, .selfSigned: .certificatePin,
            .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    func testThatPinnedRootWithChainValidationNeedsTheIntermediate() throws {
        let pinned = try root()
        try assertMatrix(.pinCertificates(certificates: [pinned], validateCertificateChain: true, validateHost: true), [
            .valid: .accepted, .missingIntermediate: .certificatePin, .wrongIntermediate: .certificatePin,
            .expired: .expiredCertificate, .wrongHost: .wrongHost, .selfSigned: .certificatePin,
            .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    // MARK: - Certificate pinning without chain validation

    func testThatPinnedLeafWithoutChainValidationMatchesPresentedBytes() throws {
        let pinned = try leaf()
        try assertMatrix(.pinCertificates(certificates: [pinned], validateCertificateChain: false, validateHost: true), [
            .valid: .accepted, .missingIntermediate: .accepted, .wrongIntermediate: .accepted,
            .expired: .certificatePin, .wrongHost: .certificatePin, .selfSigned: .certificatePin,
            .otherKey: .certificatePin, .revoked: .certificatePin,
        ])
    }

    func testThatPinnedIntermediateWithoutChainValidationMustBePresented() throws {
        let pinned = try intermediate()
        let policy = ServerTrustPolicy.pinCertificates(certificates: [pinned], validateCertificateChain: false,
                                                       validateHost: true)
        try assertMatrix(policy, [
            .valid: .accepted, .missingIntermediate: .certificatePin, .wrongIntermediate: .certificatePin,
            .expired: .accepted, .wrongHost: .wrongHost, .selfSigned: .certificatePin,
            .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    func testThatPinnedRootWithoutChainValidationNeverMatchesWhenNotSent() throws {
        let pinned = try root()
        try assertMatrix(.pinCertificates(certificates: [pinned], validateCertificateChain: false, validateHost: true), [
            .valid: .certificatePin, .missingIntermediate: .certificatePin, .wrongIntermediate: .certificatePin,
            .expired: .certificatePin, .wrongHost: .certificatePin, .selfSigned: .certificatePin,
            .otherKey: .certificatePin, .revoked: .certificatePin,
        ])
    }

    // MARK: - Public key pinning with chain validation

    func testThatPinnedLeafKeyWithChainValidationNeedsAValidChainAndTheKey() throws {
        let pinned = try key(leaf())
        try assertMatrix(.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: true, validateHost: true), [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .keyPin,
            .selfSigned: .selfSignedLeaf, .otherKey: .keyPin, .revoked: .keyPin,
        ])
    }

    func testThatPinnedIntermediateKeyWithChainValidationAcceptsWhatItIssued() throws {
        let pinned = try key(intermediate())
        let policy = ServerTrustPolicy.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: true,
                                                     validateHost: true)
        try assertMatrix(policy, [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .wrongHost,
            .selfSigned: .selfSignedLeaf, .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    func testThatPinnedRootKeyWithChainValidationMatchesTheVerifiedChain() throws {
        // The server never sends the root: the key is found in the chain OpenSSL built.
        let pinned = try key(root())
        try assertMatrix(.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: true, validateHost: true), [
            .valid: .accepted, .missingIntermediate: .unableToGetLocalIssuer,
            .wrongIntermediate: .unableToGetLocalIssuer, .expired: .expiredCertificate, .wrongHost: .wrongHost,
            .selfSigned: .selfSignedLeaf, .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    // MARK: - Public key pinning without chain validation

    func testThatPinnedLeafKeyWithoutChainValidationMatchesThePresentedLeaf() throws {
        let pinned = try key(leaf())
        try assertMatrix(.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: false, validateHost: true), [
            .valid: .accepted, .missingIntermediate: .accepted, .wrongIntermediate: .accepted,
            .expired: .keyPin, .wrongHost: .keyPin, .selfSigned: .keyPin, .otherKey: .keyPin, .revoked: .keyPin,
        ])
    }

    func testThatPinnedIntermediateKeyWithoutChainValidationMustBePresented() throws {
        let pinned = try key(intermediate())
        let policy = ServerTrustPolicy.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: false,
                                                     validateHost: true)
        try assertMatrix(policy, [
            .valid: .accepted, .missingIntermediate: .keyPin, .wrongIntermediate: .keyPin,
            .expired: .accepted, .wrongHost: .wrongHost, .selfSigned: .keyPin, .otherKey: .accepted, .revoked: .accepted,
        ])
    }

    func testThatPinnedRootKeyWithoutChainValidationNeverMatchesWhenNotSent() throws {
        let pinned = try key(root())
        try assertMatrix(.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: false, validateHost: true), [
            .valid: .keyPin, .missingIntermediate: .keyPin, .wrongIntermediate: .keyPin, .expired: .keyPin,
            .wrongHost: .keyPin, .selfSigned: .keyPin, .otherKey: .keyPin, .revoked: .keyPin,
        ])
    }

    func testThatPinnedLeafKeyWithoutHostValidationAcceptsTheLeafForAnyHost() throws {
        let pinned = try key(leaf())
        let policy = ServerTrustPolicy.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: false,
                                                     validateHost: false)
        XCTAssertEqual(try outcome(policy, PresentedChain.valid.certificates(), host: "elsewhere.example"), .accepted)
        let strict = ServerTrustPolicy.pinPublicKeys(publicKeys: [pinned], validateCertificateChain: false,
                                                     validateHost: true)
        XCTAssertEqual(try outcome(strict, PresentedChain.valid.certificates(), host: "elsewhere.example"), .wrongHost)
    }

    // MARK: - Disabled and custom evaluation

    func testThatDisabledEvaluationAcceptsEverything() throws {
        try assertMatrix(.disableEvaluation, Dictionary(uniqueKeysWithValues: PresentedChain.allCases.map { ($0, .accepted) }))
    }

    func testThatCustomEvaluationReturningTrueAcceptsEverything() throws {
        try assertMatrix(.customEvaluation { _, _ in true },
                         Dictionary(uniqueKeysWithValues: PresentedChain.allCases.map { ($0, .accepted) }))
    }

    func testThatCustomEvaluationReturningFalseRejectsEverything() throws {
        try assertMatrix(.customEvaluation { _, _ in false },
                         Dictionary(uniqueKeysWithValues: PresentedChain.allCases.map {
                             ($0, .rejected(.customEvaluationRejected))
                         }))
    }

    func testThatCustomEvaluationReceivesTheTrustAndHost() throws {
        // Given
        let chain = try PresentedChain.valid.certificates()
        let seen = LockedBox<(Int, String)?>(nil)
        // When
        let result = try outcome(.customEvaluation { trust, host in
            seen.set((trust.certificates.count, host))
            return ServerTrustPolicy.performDefaultEvaluation(validateHost: true).evaluate(trust, forHost: host)
        }, chain, host: "localhost")
        // Then
        XCTAssertEqual(result, .accepted)
        XCTAssertEqual(seen.get()?.0, 2)
        XCTAssertEqual(seen.get()?.1, "localhost")
    }
}

/// A lock-protected value for `@Sendable` closures in tests.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.unlock()
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.lock()
        change(&value)
        lock.unlock()
    }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
