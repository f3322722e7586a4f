import Foundation
import XCTest
@testable import Curlfire

final class ClientIdentityTests: XCTestCase {
    private func assertRejected(_ identity: ClientIdentity, mentioning text: String, line: UInt = #line) {
        XCTAssertThrowsError(try identity.validate(), line: line) { error in
            guard case let .sessionTaskFailed(code, message)? = error as? CurlfireError else {
                return XCTFail("unexpected error \(error)", line: line)
            }
            XCTAssertEqual(code, .clientCertificateRejected, line: line)
            XCTAssertTrue(message.contains(text), "\(message)", line: line)
        }
    }

    func testThatPEMAndPKCS12IdentitiesValidateAndExposeCurlOptions() throws {
        // Given
        let pem = ClientIdentity(certificateChainFile: try TrustTestPKI.url("client-chain.pem"),
                                 privateKeyFile: try TrustTestPKI.url("client.key"))
        let p12 = ClientIdentity(pkcs12File: try TrustTestPKI.url("client.p12"), password: "curlfire")
        // Then
        XCTAssertNoThrow(try pem.validate())
        XCTAssertNoThrow(try p12.validate())
        XCTAssertEqual(pem.format.rawValue, "PEM")
        XCTAssertEqual(pem.certificatePath, try TrustTestPKI.url("client-chain.pem").path)
        XCTAssertEqual(pem.privateKeyPath, try TrustTestPKI.url("client.key").path)
        XCTAssertNil(pem.password)
        XCTAssertEqual(p12.format.rawValue, "P12")
        XCTAssertNil(p12.privateKeyPath)
        XCTAssertEqual(p12.password, "curlfire")
    }

    func testThatAWrongPKCS12PasswordIsATypedError() throws {
        assertRejected(ClientIdentity(pkcs12File: try TrustTestPKI.url("client.p12"), password: "wrong"),
                       mentioning: "wrong password")
        assertRejected(ClientIdentity(pkcs12File: try TrustTestPKI.url("client.pem"), password: "curlfire"),
                       mentioning: "not a PKCS#12")
    }

    func testThatMissingFilesAndMismatchedKeysAreTypedErrors() throws {
        assertRejected(ClientIdentity(certificateChainFile: URL(fileURLWithPath: "/nonexistent.pem"),
                                      privateKeyFile: try TrustTestPKI.url("client.key")), mentioning: "cannot read")
        assertRejected(ClientIdentity(certificateChainFile: try TrustTestPKI.url("client.pem"),
                                      privateKeyFile: try TrustTestPKI.url("leaf.key")), mentioning: "does not match")
        assertRejected(ClientIdentity(certificateChainFile: try TrustTestPKI.url("client.key"),
                                      privateKeyFile: try TrustTestPKI.url("client.key")), mentioning: "no PEM certificate")
        assertRejected(ClientIdentity(certificateChainFile: try TrustTestPKI.url("client.pem"),
                                      privateKeyFile: try TrustTestPKI.url("client.pem")), mentioning: "private key")
    }

    func testThatAnEncryptedPEMKeyNeedsItsPassword() throws {
        // Given: the client key encrypted with a password.
        let scratch = try TrustTestPKI.scratchDirectory()  // a copy of a private key: never in /tmp
        defer { try? FileManager.default.removeItem(at: scratch) }
        let encrypted = scratch.appendingPathComponent("client.key")
        XCTAssertNotNil(TrustTestPKI.run("/usr/bin/env", ["openssl", "pkey", "-in", try TrustTestPKI.url("client.key").path,
                                                          "-aes256", "-passout", "pass:s3cret", "-out", encrypted.path]))
        let chain = try TrustTestPKI.url("client-chain.pem")
        // Then
        XCTAssertNoThrow(try ClientIdentity(certificateChainFile: chain, privateKeyFile: encrypted,
                                            privateKeyPassword: "s3cret").validate())
        assertRejected(ClientIdentity(certificateChainFile: chain, privateKeyFile: encrypted, privateKeyPassword: "nope"),
                       mentioning: "wrong password")
        // No password: rejected, without OpenSSL prompting on a terminal.
        assertRejected(ClientIdentity(certificateChainFile: chain, privateKeyFile: encrypted), mentioning: "wrong password")
    }
}
