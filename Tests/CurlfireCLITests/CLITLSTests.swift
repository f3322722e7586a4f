#if CLI
import Curlfire
import Foundation
import XCTest

/// `--cacert`, `--pin`, `--cert/--key` and `--insecure` against the HTTPS test servers and the test PKI.
final class CLITLSTests: XCTestCase {
    private var servers: CLIServers!
    private var valid = ""

    override func setUpWithError() throws {
        servers = try CLIServers.shared()
        valid = try XCTUnwrap(servers.https["valid"])
    }

    private func pin(_ file: String) throws -> String {
        let certificate = try Certificate(contentsOf: URL(fileURLWithPath: servers.pkiFile(file)))
        return try XCTUnwrap(certificate.publicKey?.pin)
    }

    func testThatThePrivateRootMakesTheServerTrusted() throws {
        let run = try CLIHarness.run(["--cacert", servers.pkiFile("root-ca.pem"), valid + "/get", "a==1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try run.json()["args"] as? [String: String], ["a": "1"])
    }

    func testThatWithoutThePrivateRootTheServerIsRejectedWithSeven() throws {
        let run = try CLIHarness.run([valid + "/get"])
        XCTAssertEqual(run.status, 7, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("curlfire: error: "), run.stderr)
        XCTAssertTrue(run.stdout.isEmpty)
    }

    func testThatTheRightPinIsAcceptedAndAWrongOneExitsWithSeven() throws {
        let root = servers.pkiFile("root-ca.pem")
        let right = try CLIHarness.run(["--cacert", root, "--pin", try pin("leaf.pem"), valid + "/get"])
        XCTAssertEqual(right.status, 0, right.stderr)
        let rootPin = try CLIHarness.run(["--cacert", root, "--pin", try pin("root-ca.pem"), valid + "/get"])
        XCTAssertEqual(rootPin.status, 0, "a pinned root in the verified chain matches: \(rootPin.stderr)")
        let wrong = try CLIHarness.run(["--cacert", root, "--pin", try pin("otherkey.pem"), valid + "/get"])
        XCTAssertEqual(wrong.status, 7, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("no public key of its chain matches a pinned key"), wrong.stderr)
        let several = try CLIHarness.run(["--cacert", root, "--pin", try pin("otherkey.pem"), "--pin", try pin("leaf.pem"),
                                          valid + "/get"])
        XCTAssertEqual(several.status, 0, "any of several pins: \(several.stderr)")
    }

    func testThatInsecureIsNeededForASelfSignedServerAndStillHonoursPins() throws {
        let selfSigned = try XCTUnwrap(servers.https["selfsigned"])
        XCTAssertEqual(try CLIHarness.run([selfSigned + "/get"]).status, 7)
        let insecure = try CLIHarness.run(["--insecure", selfSigned + "/get"])
        XCTAssertEqual(insecure.status, 0, insecure.stderr)
        let pinned = try CLIHarness.run(["--insecure", "--pin", try pin("leaf.pem"), selfSigned + "/get"])
        XCTAssertEqual(pinned.status, 7, pinned.stderr)
    }

    func testThatAClientCertificateOpensTheMutualTLSServer() throws {
        let mtls = try XCTUnwrap(servers.https["mtls"])
        let root = servers.pkiFile("root-ca.pem")
        let without = try CLIHarness.run(["--cacert", root, mtls + "/get"])
        XCTAssertEqual(without.status, 7, without.stderr)
        let with = try CLIHarness.run(["--cacert", root, "--cert", servers.pkiFile("client-chain.pem"),
                                       "--key", servers.pkiFile("client.key"), mtls + "/get"])
        XCTAssertEqual(with.status, 0, with.stderr)
        let missingKey = try CLIHarness.run(["--cacert", root, "--cert", servers.pkiFile("client-chain.pem"), mtls + "/get"])
        XCTAssertEqual(missingKey.status, 2, missingKey.stderr)
    }
}
#endif
