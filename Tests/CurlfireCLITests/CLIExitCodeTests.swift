#if CLI
import Foundation
import XCTest

/// Exit codes by failure kind, run through the binary.
final class CLIExitCodeTests: XCTestCase {
    private var httpbin = ""

    override func setUpWithError() throws {
        httpbin = try CLIServers.shared().httpbin
    }

    func testThatCheckStatusMapsClientAndServerErrors() throws {
        let notFound = try CLIHarness.run(["--check-status", httpbin + "/status/404"])
        XCTAssertEqual(notFound.status, 4, notFound.stderr)
        XCTAssertTrue(notFound.stderr.contains("HTTP 404 Not Found"), notFound.stderr)
        XCTAssertEqual(try CLIHarness.run(["--check-status", httpbin + "/status/500"]).status, 5)
        XCTAssertEqual(try CLIHarness.run(["--check-status", httpbin + "/status/204"]).status, 0)
        XCTAssertEqual(try CLIHarness.run([httpbin + "/status/500"]).status, 0, "without --check-status a 5xx is a response")
        let wrongPassword = try CLIHarness.run(["--check-status", "-a", "user:nope", httpbin + "/basic-auth/user/pass"])
        XCTAssertEqual(wrongPassword.status, 4)
    }

    func testThatATimeoutExitsWithSix() throws {
        let start = Date()
        let run = try CLIHarness.run(["--timeout", "1", httpbin + "/delay/3"])
        XCTAssertEqual(run.status, 6, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("curlfire: error: "), run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.9)
    }

    func testThatARefusedConnectionExitsWithEight() throws {
        let run = try CLIHarness.run(["http://127.0.0.1:\(try CLIHarness.closedPort())/"])
        XCTAssertEqual(run.status, 8, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one line: \(run.stderr)")
        XCTAssertTrue(run.stderr.hasPrefix("curlfire: error: "), run.stderr)
    }

    func testThatUsageErrorsExitWithTwo() throws {
        for arguments in [[], [httpbin + "/get", "noseparator"], [httpbin + "/get", "--no-such-option"],
                          ["--continue", "-d", httpbin + "/get"], [httpbin + "/post", "n:={bad"],
                          [httpbin + "/post", "f@/etc/hostname"], ["--form", httpbin + "/post", "n:=1"],
                          ["--pin", "md5//abc", httpbin + "/get"], ["http://"]] {
            let run = try CLIHarness.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("curlfire: error: "), "\(arguments): \(run.stderr)")
        }
    }

    func testThatAnUnwritableOutputFileExitsWithNine() throws {
        let run = try CLIHarness.run(["-o", "/nonexistent-directory/out.json", httpbin + "/get"])
        XCTAssertEqual(run.status, 9, run.stderr)
        let download = try CLIHarness.run(["-d", "-o", "/nonexistent-directory/out.bin", httpbin + "/bytes/10"])
        XCTAssertEqual(download.status, 9, download.stderr)
    }

    func testThatHelpDocumentsTheExitCodes() throws {
        let run = try CLIHarness.run(["--help"])
        XCTAssertEqual(run.status, 0)
        for line in ["EXIT CODES", "6  timeout", "7  TLS failure", "8  connection failure", "name:=json"] {
            XCTAssertTrue(run.text.contains(line), "\(line) missing from --help")
        }
    }
}
#endif
