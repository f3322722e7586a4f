#if CLI
import CurlfireCLIKit
import CurlfireTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Interrupted downloads keep their bytes; `--continue` sends Range and If-Range and completes them.
/// Each test runs its own in-process range server (Support/RangeMockServer.swift, shared with the
/// integration tests); the `curlfire` binary under test is another process talking to it on loopback.
final class CLIResumeTests: XCTestCase {
    private var directory = ""
    private var server: RangeMockServer!

    override func setUpWithError() throws {
        directory = try CLIHarness.temporaryDirectory(self)
        server = try RangeMockServer()
    }

    override func tearDown() {
        server = nil
    }

    /// `http://127.0.0.1:PORT/<mode>/<size>` on this test's server.
    private func url(_ mode: RangeMockServer.Mode, size: Int) -> String {
        server.url(mode, size: size).absoluteString
    }

    func testThatADroppedDownloadKeepsItsBytesAndContinueCompletesThem() throws {
        let url = self.url(.drop, size: 200_000)
        let file = directory + "/dropped.bin"
        let first = try CLIHarness.run(["-d", "-o", file, url])
        XCTAssertEqual(first.status, 8, first.stderr)
        XCTAssertTrue(first.stderr.contains("kept 100000 bytes in \(file)"), first.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: file), RangeMockServer.expectedBody(size: 200_000).prefix(100_000))

        let second = try CLIHarness.run(["-d", "-c", "-o", file, url])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: file), RangeMockServer.expectedBody(size: 200_000))
        let headers = server.rangeHeaders(for: "/drop/200000")
        XCTAssertEqual(headers.last?.range, "bytes=100000-")
        XCTAssertEqual(headers.last?.ifRange, "\"v1-200000\"")
    }

    func testThatAChangedEntityRestartsTheFileInsteadOfAppending() throws {
        let file = directory + "/changed.bin"
        XCTAssertEqual(try CLIHarness.run(["-d", "-o", file, url(.good, size: 300_000)]).status, 0)
        XCTAssertEqual(Glibc.truncate(file, 1000), 0)
        // Another entity (ETag "v1-300001") at the URL: If-Range does not match, the server sends 200.
        let run = try CLIHarness.run(["-d", "-c", "-o", file, url(.good, size: 300_001)])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("starting over"), run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: file), RangeMockServer.expectedBody(size: 300_001))
        XCTAssertEqual(server.rangeHeaders(for: "/good/300001").last?.ifRange, "\"v1-300000\"")
    }

    func testThatARefusedRangeLeavesThePartialFileUnchanged() throws {
        let file = directory + "/flaky.bin"
        let partial = RangeMockServer.expectedBody(size: 50_000).prefix(20_000)
        try Data(partial).write(to: URL(fileURLWithPath: file))
        let run = try CLIHarness.run(["-d", "-c", "-o", file, url(.flaky, size: 50_000)])
        XCTAssertEqual(run.status, 5, run.stderr)
        XCTAssertTrue(run.stderr.contains("the partial file is unchanged"), run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: file), Data(partial))
    }

    func testThatCtrlCKeepsThePartialFileForContinue() throws {
        let binary = try XCTUnwrap(CLIHarness.binary)
        let url = self.url(.slow, size: 6_000_000)
        let file = directory + "/slow.bin"
        // Ctrl-C must land after the body started: a fixed sleep raced a slow start of the binary
        // (under ThreadSanitizer on a loaded machine, 0.5 s was not enough to reach the response).
        // So the script waits for `<file>.go`, made 0.4 s after the server saw the request (about
        // 1.6 MB of the 6 MB at the server's pace), or gives up waiting after 20 s.
        let go = file + ".go"
        let server = self.server!
        DispatchQueue.global().async {
            let deadline = Date().addingTimeInterval(20)
            while server.requests(for: "/slow/6000000").isEmpty, Date() < deadline { usleep(20_000) }
            usleep(400_000)
            _ = FileManager.default.createFile(atPath: go, contents: nil)
        }
        // Job control on, so the background job does not start with SIGINT ignored.
        let script = "set -m; \"$0\" -d -o \"$1\" \"$2\" 2>\"$1.err\" & pid=$!; n=0; "
            + "while [ ! -e \"$1.go\" ] && [ $n -lt 500 ]; do sleep 0.05; n=$((n+1)); done; "
            + "kill -INT $pid; wait $pid; echo $?"
        let interrupted = try Subprocess.runShell(script, binary, file, url)
        let stderr = (try? String(contentsOfFile: file + ".err", encoding: .utf8)) ?? ""
        XCTAssertEqual(interrupted.trimmingCharacters(in: .whitespacesAndNewlines), "1", stderr)
        XCTAssertTrue(stderr.contains("interrupted; kept "), stderr)
        let kept = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(kept, 0)
        XCTAssertLessThan(kept, 6_000_000)

        let run = try CLIHarness.run(["-d", "-c", "-o", file, url])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("resumed from byte \(kept)"), run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: file), RangeMockServer.expectedBody(size: 6_000_000))
    }

    func testThatResumeDataIsReadForBytesAndValidator() {
        let json = #"{"bytesReceived": 42, "entityTag": "W/\"weak\"", "format": "org.curlfire.resume-data", "#
            + #""lastModified": "Tue, 01 Apr 2025 10:00:00 GMT", "version": 1}"#
        XCTAssertEqual(PartialDownload(resumeData: Data(json.utf8)),
                       PartialDownload(resumeData: Data(json.utf8)))
        XCTAssertEqual(PartialDownload(resumeData: Data(json.utf8))?.bytesReceived, 42)
        XCTAssertEqual(PartialDownload(resumeData: Data(json.utf8))?.validator, "Tue, 01 Apr 2025 10:00:00 GMT",
                       "a weak ETag cannot validate a range")
        XCTAssertNil(PartialDownload(resumeData: Data(#"{"format": "other", "bytesReceived": 1}"#.utf8)))
    }
}

extension Subprocess {
    /// Runs `script` with `/bin/sh -c`, `arguments` as `$0 $1 …`, and returns its stdout.
    static func runShell(_ script: String, _ arguments: String...) throws -> String {
        try run(["/bin/sh", "-c", script] + arguments).text
    }
}
#endif
