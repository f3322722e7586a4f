import Foundation
import XCTest
@testable import Curlfire

/// Pins without chain validation match only the signature path that starts at the presented leaf
/// (Alamofire 4's behaviour on Apple): a genuine CA certificate appended after a foreign leaf never passes.
final class PinSignaturePathTests: XCTestCase {
    private func certificates(_ names: String...) throws -> [Certificate] {
        try names.map { try TrustTestPKI.certificate("\($0).pem") }
    }

    private func keyPin(_ name: String) throws -> ServerTrustPolicy {
        .pinPublicKeys(publicKeys: [try XCTUnwrap(TrustTestPKI.certificate("\(name).pem").publicKey)],
                       validateCertificateChain: false, validateHost: true)
    }

    private func certificatePin(_ name: String) throws -> ServerTrustPolicy {
        .pinCertificates(certificates: [try TrustTestPKI.certificate("\(name).pem")],
                         validateCertificateChain: false, validateHost: true)
    }

    func testThatTheSignaturePathStopsAtTheFirstCertificateThatDidNotSignThePreviousOne() throws {
        let (leaf, intermediate, root) = (try certificates("leaf")[0], try certificates("intermediate-ca")[0],
                                          try certificates("root-ca")[0])
        XCTAssertEqual(SignaturePath.path(from: [leaf, intermediate, root]), [leaf, intermediate, root])
        XCTAssertEqual(SignaturePath.path(from: [leaf, root]), [leaf], "missing intermediate: the path breaks")
        XCTAssertEqual(SignaturePath.path(from: [leaf, root, intermediate]), [leaf], "order matters")
        XCTAssertEqual(SignaturePath.path(from: try certificates("selfsigned", "intermediate-ca", "root-ca")).count, 1)
        XCTAssertEqual(SignaturePath.path(from: try certificates("leaf", "other-intermediate-ca")), [leaf],
                       "same subject, other key: no signature")
        XCTAssertEqual(SignaturePath.path(from: []), [])
    }

    func testThatAPinnedIntermediateKeyRejectsASelfSignedLeafFollowedByTheGenuineIntermediate() throws {
        XCTAssertEqual(try outcome(keyPin("intermediate-ca"), certificates("selfsigned", "intermediate-ca")), .keyPin)
        XCTAssertEqual(try outcome(keyPin("intermediate-ca"), certificates("selfsigned", "intermediate-ca", "root-ca")),
                       .keyPin)
        XCTAssertEqual(try outcome(keyPin("root-ca"), certificates("selfsigned", "intermediate-ca", "root-ca")), .keyPin)
        // The genuine leaf with the same certificates after it is on the path and passes.
        XCTAssertEqual(try outcome(keyPin("intermediate-ca"), certificates("leaf", "intermediate-ca")), .accepted)
        XCTAssertEqual(try outcome(keyPin("root-ca"), certificates("leaf", "intermediate-ca", "root-ca")), .accepted)
        // With chain validation a pin matches the verified chain, here the root from the anchors.
        let root = try XCTUnwrap(TrustTestPKI.certificate("root-ca.pem").publicKey)
        let validated = ServerTrustPolicy.pinPublicKeys(publicKeys: [root], validateCertificateChain: true,
                                                        validateHost: true)
        XCTAssertEqual(try outcome(validated, certificates("leaf", "intermediate-ca")), .accepted)
    }

    func testThatAPinnedLeafKeyRejectsASelfSignedLeafFollowedByThePinnedLeaf() throws {
        XCTAssertEqual(try outcome(keyPin("leaf"), certificates("selfsigned", "leaf")), .keyPin)
        XCTAssertEqual(try outcome(keyPin("leaf"), certificates("leaf", "root-ca")), .accepted)
    }

    func testThatPinningTheRootKeyWithoutChainValidationFailsWithAMissingIntermediate() throws {
        XCTAssertEqual(try outcome(keyPin("root-ca"), certificates("leaf", "root-ca")), .keyPin)
    }

    func testThatPinnedCertificatesFollowTheSameSignaturePath() throws {
        XCTAssertEqual(try outcome(certificatePin("intermediate-ca"), certificates("selfsigned", "intermediate-ca")),
                       .certificatePin)
        XCTAssertEqual(try outcome(certificatePin("leaf"), certificates("selfsigned", "leaf")), .certificatePin)
        XCTAssertEqual(try outcome(certificatePin("intermediate-ca"), certificates("leaf", "intermediate-ca")), .accepted)
        XCTAssertEqual(try outcome(certificatePin("root-ca"), certificates("leaf", "intermediate-ca", "root-ca")),
                       .accepted)
        XCTAssertEqual(try outcome(certificatePin("root-ca"), certificates("leaf", "root-ca")), .certificatePin)
    }
}
