#if CLI
import Foundation
import CurlfireTestSupport
import XCTest

/// `--har FILE` (issue 29), run through the binary against real httpbin.
final class CLIHARTests: XCTestCase {
    private var httpbin = ""
    private var directory = ""

    override func setUpWithError() throws {
        httpbin = try CLIServers.shared().httpbin
        directory = NSTemporaryDirectory() + "cli-har-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    private func entries(_ path: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let log = try XCTUnwrap(object?["log"] as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "1.2")
        XCTAssertEqual((log["creator"] as? [String: Any])?["name"] as? String, "Curlfire")
        return try XCTUnwrap(log["entries"] as? [[String: Any]])
    }

    func testThatHARRecordsEveryHopOfAFollowedRequest() throws {
        let file = directory + "/session.har"
        let run = try CLIHarness.run(["--har", file, "--follow", httpbin + "/redirect/2", "Authorization:Bearer cli-secret"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.text.contains("\"url\""), "the body is still printed")
        let entries = try entries(file)
        let statuses = entries.map { ($0["response"] as? [String: Any])?["status"] as? Int }
        XCTAssertEqual(statuses, [302, 302, 200])
        let first = try XCTUnwrap(entries.first?["request"] as? [String: Any])
        XCTAssertEqual(first["url"] as? String, httpbin + "/redirect/2")
        let headers = try XCTUnwrap(first["headers"] as? [[String: String]])
        XCTAssertEqual(headers.first { $0["name"]?.lowercased() == "authorization" }?["value"], "[redacted]")
        let timings = try XCTUnwrap(entries.first?["timings"] as? [String: Double])
        XCTAssertGreaterThanOrEqual(timings["wait"] ?? -1, 0)
    }

    func testThatAFailedRequestIsRecordedToo() throws {
        let file = directory + "/failed.har"
        let run = try CLIHarness.run(["--har", file, "--check-status", httpbin + "/status/404"])
        XCTAssertEqual(run.status, 4, run.stderr)
        let entries = try entries(file)
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual((entries.first?["response"] as? [String: Any])?["status"] as? Int, 404)
    }

    func testThatAnUnwritableHARFileIsAnIOError() throws {
        let run = try CLIHarness.run(["--har", directory + "/missing-dir/x.har", httpbin + "/get"])
        XCTAssertEqual(run.status, 9, run.stderr)
        XCTAssertTrue(run.stderr.contains("--har"), run.stderr)
    }
}
#endif
