import Foundation
import XCTest
@testable import Curlfire

final class CertificateTests: XCTestCase {
    // MARK: - Parsing

    func testThatDERAndPEMOfTheSameCertificateAreEqual() throws {
        // Given
        let der = try Data(contentsOf: TrustTestPKI.url("root-ca.der"))
        let pem = try Data(contentsOf: TrustTestPKI.url("root-ca.pem"))
        // When
        let fromDER = try XCTUnwrap(Certificate(derData: der))
        let fromPEM = try XCTUnwrap(Certificate(pemData: pem))
        let fromString = try XCTUnwrap(Certificate(pemString: String(decoding: pem, as: UTF8.self)))
        // Then
        XCTAssertEqual(fromDER, fromPEM)
        XCTAssertEqual(fromPEM, fromString)
        XCTAssertEqual(fromPEM.derData, der)
        XCTAssertEqual(Set([fromDER, fromPEM, fromString]).count, 1)
        XCTAssertEqual(try Certificate(contentsOf: TrustTestPKI.url("root-ca.der")), fromDER)
        XCTAssertEqual(try Certificate(contentsOf: TrustTestPKI.url("root-ca.pem")), fromDER)
    }

    func testThatABundleYieldsEveryCertificateInOrder() throws {
        let chain = Certificate.certificates(fromPEM: try Data(contentsOf: TrustTestPKI.url("leaf-chain.pem")))
        XCTAssertEqual(chain.count, 2)
        XCTAssertEqual(chain.first, try TrustTestPKI.certificate("leaf.pem"))
        XCTAssertEqual(chain.last, try TrustTestPKI.certificate("intermediate-ca.pem"))
        XCTAssertNotEqual(chain[0], chain[1])
    }

    func testThatGarbageIsRejectedWithoutCrashing() throws {
        let samples: [Data] = [
            Data(), Data([0x30]), Data([0x30, 0x82, 0xFF, 0xFF]), Data(repeating: 0xAB, count: 4096),
            Data("not a certificate".utf8),
            Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8),
            Data("-----BEGIN CERTIFICATE-----\nunterminated".utf8),
        ]
        for sample in samples {
            XCTAssertNil(Certificate(derData: sample))
            XCTAssertNil(Certificate(pemData: sample))
            XCTAssertTrue(Certificate.certificates(fromPEM: sample).isEmpty)
            XCTAssertThrowsError(try Certificate(data: sample)) { error in
                XCTAssertEqual(error as? Certificate.ParsingError, .invalidCertificateData)
            }
        }
        XCTAssertThrowsError(try Certificate(contentsOf: URL(fileURLWithPath: "/nonexistent/cert.pem"))) { error in
            XCTAssertEqual(error as? Certificate.ParsingError, .unreadableFile(path: "/nonexistent/cert.pem"))
        }
    }

    func testThatDERWithTrailingBytesIsRejected() throws {
        let der = try Data(contentsOf: TrustTestPKI.url("root-ca.der"))
        XCTAssertNil(Certificate(derData: der + Data([0])))
        XCTAssertNil(Certificate(derData: der.dropLast()))
    }

    func testThatAPrivateKeyIsNotACertificateButIsSkippedInABundle() throws {
        let key = try Data(contentsOf: TrustTestPKI.url("leaf.key"))
        XCTAssertNil(Certificate(pemData: key))
        let mixed = key + (try Data(contentsOf: TrustTestPKI.url("leaf.pem")))
            + Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)
            + (try Data(contentsOf: TrustTestPKI.url("crl.pem")))
            + (try Data(contentsOf: TrustTestPKI.url("root-ca.pem")))
        let certificates = Certificate.certificates(fromPEM: mixed)
        XCTAssertEqual(certificates, [try TrustTestPKI.certificate("leaf.pem"), try TrustTestPKI.certificate("root-ca.pem")])
    }

    // MARK: - Fields

    func testThatSummariesAreRFC2253() throws {
        let leaf = try TrustTestPKI.certificate("leaf.pem")
        XCTAssertEqual(leaf.subjectSummary, "CN=localhost,O=Curlfire Test")
        XCTAssertEqual(leaf.issuerSummary, "CN=Curlfire Test Intermediate CA,O=Curlfire Test")
        XCTAssertEqual(leaf.description, "Certificate(CN=localhost,O=Curlfire Test)")
    }

    func testThatSubjectAlternativeNamesListDNSAndIPEntries() throws {
        XCTAssertEqual(try TrustTestPKI.certificate("leaf.pem").subjectAlternativeNames, ["localhost", "127.0.0.1", "::1"])
        XCTAssertEqual(try TrustTestPKI.certificate("wronghost.pem").subjectAlternativeNames, ["wrong.example"])
        XCTAssertEqual(try TrustTestPKI.certificate("wildcard.pem").subjectAlternativeNames, ["*.curlfire.test"])
        XCTAssertEqual(try TrustTestPKI.certificate("root-ca.pem").subjectAlternativeNames, [])
    }

    func testThatValidityDatesMatchTheCLI() throws {
        let expired = try TrustTestPKI.certificate("expired.pem")
        XCTAssertEqual(expired.notValidBefore, Date(timeIntervalSince1970: 1_577_836_800))  // 2020-01-01
        XCTAssertEqual(expired.notValidAfter, Date(timeIntervalSince1970: 1_609_459_200))  // 2021-01-01
        let leaf = try TrustTestPKI.certificate("leaf.pem")
        let days = leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) / 86_400
        XCTAssertEqual(days, 3650, accuracy: 0.01)
        let root = try TrustTestPKI.certificate("root-ca.pem")
        XCTAssertEqual(root.notValidAfter.timeIntervalSince(root.notValidBefore) / 86_400, 7300, accuracy: 0.01)
    }

    func testThatOnlyRootsAndTheSelfSignedLeafAreSelfSigned() throws {
        for name in ["root-ca.pem", "other-root-ca.pem", "selfsigned.pem"] {
            XCTAssertTrue(try TrustTestPKI.certificate(name).isSelfSigned, name)
        }
        for name in ["intermediate-ca.pem", "other-intermediate-ca.pem", "leaf.pem", "otherkey.pem"] {
            XCTAssertFalse(try TrustTestPKI.certificate(name).isSelfSigned, name)
        }
    }

    // MARK: - Public keys

    func testThatThePinEqualsTheOpenSSLCommandLinePipeline() throws {
        for name in ["leaf.pem", "intermediate-ca.pem", "root-ca.pem", "selfsigned.pem"] {
            // Given: the documented CLI pipeline.
            let path = try TrustTestPKI.url(name).path
            let pipeline = "openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform DER"
                + " | openssl dgst -sha256 -binary | openssl base64 -A"
            let output = try XCTUnwrap(TrustTestPKI.run("/bin/sh", ["-c", pipeline]))
            let expected = "sha256//" + String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            // When
            let pin = try XCTUnwrap(TrustTestPKI.certificate(name).publicKey).pin
            // Then
            XCTAssertEqual(pin, expected, name)
            XCTAssertEqual(pin.count, "sha256//".count + 44)
        }
    }

    func testThatKeysCompareBySubjectPublicKeyInfo() throws {
        let leafKey = try XCTUnwrap(TrustTestPKI.certificate("leaf.pem").publicKey)
        let chainLeafKey = try XCTUnwrap(TrustTestPKI.chain("leaf-chain.pem").first?.publicKey)
        let otherKey = try XCTUnwrap(TrustTestPKI.certificate("otherkey.pem").publicKey)
        XCTAssertEqual(leafKey, chainLeafKey)
        XCTAssertNotEqual(leafKey, otherKey)
        // The other intermediate shares the intermediate's name, not its key.
        XCTAssertNotEqual(try TrustTestPKI.certificate("intermediate-ca.pem").publicKey,
                          try TrustTestPKI.certificate("other-intermediate-ca.pem").publicKey)
    }

    func testThatAKeyRoundTripsThroughDERAndPin() throws {
        let key = try XCTUnwrap(TrustTestPKI.certificate("leaf.pem").publicKey)
        let der = try XCTUnwrap(key.derData)
        XCTAssertEqual(PublicKey(derData: der), key)
        let fromPin = try XCTUnwrap(PublicKey(pin: key.pin))
        XCTAssertEqual(fromPin, key)
        XCTAssertNil(fromPin.derData)
        XCTAssertEqual(fromPin.pin, key.pin)
        XCTAssertEqual(Set([fromPin, key]).count, 1)
    }

    func testThatInvalidKeysAndPinsAreRejected() {
        XCTAssertNil(PublicKey(derData: Data()))
        XCTAssertNil(PublicKey(derData: Data(repeating: 7, count: 91)))
        XCTAssertNil(PublicKey(pin: "sha256//short"))
        XCTAssertNil(PublicKey(pin: "sha1//" + Data(count: 32).base64EncodedString()))
        XCTAssertNil(PublicKey(pin: "sha256//" + Data(count: 20).base64EncodedString()))
        XCTAssertNotNil(PublicKey(pin: "sha256//" + Data(count: 32).base64EncodedString()))
    }

    func testThatAPinOnlyKeyWorksInAPinningPolicy() throws {
        // Given
        let pin = try XCTUnwrap(TrustTestPKI.certificate("intermediate-ca.pem").publicKey?.pin)
        let policy = ServerTrustPolicy.pinPublicKeys(publicKeys: [try XCTUnwrap(PublicKey(pin: pin))],
                                                     validateCertificateChain: true, validateHost: true)
        // Then
        XCTAssertEqual(try outcome(policy, PresentedChain.valid.certificates()), .accepted)
        XCTAssertEqual(try outcome(policy, PresentedChain.selfSigned.certificates(),
                                   anchors: [TrustTestPKI.certificate("selfsigned.pem")]), .keyPin)
    }

    // MARK: - CRLs

    func testThatTheCRLBundleHoldsTheIntermediateAndRootLists() throws {
        let lists = try TrustTestPKI.revocationLists()
        XCTAssertEqual(lists.map(\.issuerSummary), ["CN=Curlfire Test Intermediate CA,O=Curlfire Test",
                                                    "CN=Curlfire Test Root CA,O=Curlfire Test"])
        let first = try XCTUnwrap(lists.first)
        XCTAssertEqual(CertificateRevocationList(derData: first.derData), first)
        XCTAssertNil(CertificateRevocationList(derData: Data("garbage".utf8)))
        XCTAssertGreaterThan(try XCTUnwrap(first.nextUpdate), first.lastUpdate)
        XCTAssertEqual(CertificateRevocationList.revocationLists(contentsOf: try TrustTestPKI.url("crl.pem")), lists)
        XCTAssertTrue(CertificateRevocationList.revocationLists(contentsOf: try TrustTestPKI.url("leaf.pem")).isEmpty)
    }
}
