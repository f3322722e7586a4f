#if CLI
import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `--hsts FILE`: one `curlfire` process learns a host from a verified HTTPS response and saves it;
/// the next process sends that host's `http://` URL over HTTPS (the explicit port kept). The server
/// only speaks TLS, so a URL that was not upgraded would fail.
final class CLIHSTSTests: XCTestCase {
    func testThatTheHSTSFileIsWrittenAndUpgradesTheNextRun() throws {
        let server = try MockServer(tls: .selfSigned(hosts: ["hsts.test"]))
        defer { server.shutdown() }
        let directory = try CLIHarness.temporaryDirectory(self)
        let root = directory + "/root.pem"
        let der = try XCTUnwrap(server.certificate).derData.base64EncodedString(options: .lineLength64Characters)
        try "-----BEGIN CERTIFICATE-----\n\(der)\n-----END CERTIFICATE-----\n".write(toFile: root, atomically: true, encoding: .utf8)
        let file = directory + "/hsts.txt"
        let common = ["--cacert", root, "--resolve", "hsts.test:\(server.port):127.0.0.1", "--hsts", file]

        server.enqueue(MockResponse(statusCode: 200, headers: ["Strict-Transport-Security": "max-age=600; includeSubDomains"],
                                    body: Data("learned".utf8)))
        let learn = try CLIHarness.run(common + ["https://hsts.test:\(server.port)/learn"])
        XCTAssertEqual(learn.status, 0, learn.stderr)
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(saved.contains(".hsts.test \""), saved)

        server.enqueue(.text("secure"))
        let upgraded = try CLIHarness.run(common + ["http://hsts.test:\(server.port)/again"])
        XCTAssertEqual(upgraded.status, 0, upgraded.stderr)
        XCTAssertEqual(upgraded.text, "secure")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatAnUnreadableHSTSFileIsAnIOError() throws {
        let directory = try CLIHarness.temporaryDirectory(self)
        let run = try CLIHarness.run(["--hsts", directory, "http://hsts.test/"]) // a directory, not a file
        XCTAssertEqual(run.status, 9, run.stderr)
        XCTAssertTrue(run.stderr.contains("--hsts"), run.stderr)
    }
}
#endif
