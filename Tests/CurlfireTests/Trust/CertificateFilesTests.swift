import Foundation
import XCTest
@testable import Curlfire

final class CertificateFilesTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try TrustTestPKI.scratchDirectory()  // it receives a copy of leaf.key: not in /tmp
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func copy(_ name: String, as target: String) throws {
        try FileManager.default.copyItem(at: TrustTestPKI.url(name), to: directory.appendingPathComponent(target))
    }

    private func write(_ text: String, as target: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(target))
    }

    func testThatEveryCertificateFileIsReadAndEverythingElseSkipped() throws {
        // Given
        try copy("root-ca.der", as: "a-root.der")           // DER
        try copy("root-ca.der", as: "b-root.cer")           // DER again under another extension: kept twice
        try copy("leaf-chain.pem", as: "c-chain.pem")       // two certificates
        try copy("intermediate-ca.pem", as: "d-inter.CRT")  // upper-case extension
        try copy("leaf.key", as: "e-key.pem")               // a private key with a certificate extension
        try copy("crl.pem", as: "f-crl.pem")                // CRLs only
        try write("garbage", as: "g-garbage.crt")
        try copy("selfsigned.pem", as: "h-selfsigned.txt")  // wrong extension
        try copy("other-root-ca.pem", as: ".hidden.pem")    // hidden
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub.pem"),
                                                withIntermediateDirectories: true)
        // When
        let certificates = ServerTrustPolicy.certificates(in: directory)
        // Then
        let root = try TrustTestPKI.certificate("root-ca.pem")
        let leaf = try TrustTestPKI.certificate("leaf.pem")
        let intermediate = try TrustTestPKI.certificate("intermediate-ca.pem")
        XCTAssertEqual(certificates, [root, root, leaf, intermediate, intermediate])
        XCTAssertEqual(ServerTrustPolicy.publicKeys(in: directory), certificates.compactMap(\.publicKey))
    }

    func testThatAMissingOrEmptyDirectoryYieldsNothing() throws {
        XCTAssertTrue(ServerTrustPolicy.certificates(in: directory).isEmpty)
        XCTAssertTrue(ServerTrustPolicy.certificates(in: directory.appendingPathComponent("missing")).isEmpty)
        XCTAssertTrue(ServerTrustPolicy.publicKeys(in: directory.appendingPathComponent("missing")).isEmpty)
    }

    func testThatABundleIsSearchedThroughItsResourcePath() throws {
        // Given: a bundle directory whose resources hold one certificate.
        try copy("root-ca.pem", as: "root.pem")
        let bundle = try XCTUnwrap(Bundle(path: directory.path))
        // Then
        XCTAssertEqual(ServerTrustPolicy.certificates(in: bundle), [try TrustTestPKI.certificate("root-ca.pem")])
        XCTAssertEqual(ServerTrustPolicy.publicKeys(in: bundle).count, 1)
    }
}
