#if CLI
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--download`, `-o`, suggested names, `--continue` and the forced progress bar.
final class CLIDownloadTests: XCTestCase {
    private var servers: CLIServers!
    private var httpbin = ""
    private var directory = ""

    override func setUpWithError() throws {
        servers = try CLIServers.shared()
        httpbin = servers.httpbin
        directory = try CLIHarness.temporaryDirectory(self)
    }

    private func truncate(_ path: String, to length: Int) {
        XCTAssertEqual(Glibc.truncate(path, off_t(length)), 0)
    }

    func testThatADownloadWritesTheExactBytes() throws {
        let file = directory + "/bytes.bin"
        let url = httpbin + "/bytes/102400?seed=42"
        let run = try CLIHarness.run(["--download", "-o", file, url])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.isEmpty)
        XCTAssertTrue(run.stderr.hasPrefix("Done. 102.4 kB in "), run.stderr)
        XCTAssertFalse(run.stderr.contains("\r"), "no bar when stderr is not a terminal")
        let reference = directory + "/reference.bin"
        _ = try CLIHarness.tool(["curl", "-s", "-o", reference, url])
        XCTAssertEqual(try CLIHarness.sha256(file), try CLIHarness.sha256(reference))
    }

    func testThatTheLargeFileArrivesIntactWithAForcedProgressBar() throws {
        let nginx = try XCTUnwrap(servers.nginx_http, "nginx is needed for the large file")
        let file = directory + "/large.bin"
        let run = try CLIHarness.run(["-d", "--progress", "-o", file, nginx + "/large.bin"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try CLIHarness.sha256(file), servers.large_file_sha256)
        XCTAssertTrue(run.stderr.contains("\r100% [====="), run.stderr.suffix(300).description)
        XCTAssertTrue(run.stderr.contains("Done. 67.1 MB"), run.stderr.suffix(300).description)
    }

    func testThatContinueAppendsTheRestOfATruncatedFile() throws {
        let nginx = try XCTUnwrap(servers.nginx_http, "nginx is needed for ranges")
        let file = directory + "/large.bin"
        XCTAssertEqual(try CLIHarness.run(["-d", "-o", file, nginx + "/large.bin"]).status, 0)
        truncate(file, to: 1_000_000)
        let run = try CLIHarness.run(["-d", "--continue", "-o", file, nginx + "/large.bin", "-v"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("HTTP/1.1 206 Partial Content"), run.stderr)
        XCTAssertTrue(run.stderr.contains("resumed from byte 1000000"), run.stderr)
        XCTAssertEqual(try CLIHarness.sha256(file), servers.large_file_sha256)

        let again = try CLIHarness.run(["-d", "-c", "-o", file, nginx + "/large.bin"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("already complete"), again.stderr)
        XCTAssertEqual(try CLIHarness.sha256(file), servers.large_file_sha256)
    }

    func testThatContinueRestartsWhenTheServerIgnoresTheRange() throws {
        // httpbin's /bytes answers 200 to a Range request: the file must be replaced, never appended to.
        let url = httpbin + "/bytes/50000?seed=9"
        let file = directory + "/b.bin"
        let reference = directory + "/reference.bin"
        _ = try CLIHarness.tool(["curl", "-s", "-o", reference, url])
        try Data((FileManager.default.contents(atPath: reference) ?? Data()).prefix(7000)).write(to: URL(fileURLWithPath: file))
        let run = try CLIHarness.run(["-d", "-c", "-o", file, url])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("starting over"), run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: file), FileManager.default.contents(atPath: reference))
    }

    func testThatWithoutOTheSanitisedSuggestedNameIsUsed() throws {
        let url = httpbin + "/response-headers?Content-Disposition=attachment%3B%20filename%3D%22..%2F..%2Fevil.txt%22"
        let run = try CLIHarness.run(["-d", url], in: directory)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/evil.txt"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/../evil.txt"))
    }

    func testThatAnErrorStatusSavesNothing() throws {
        let file = directory + "/missing.bin"
        let run = try CLIHarness.run(["-d", "-o", file, httpbin + "/status/404"])
        XCTAssertEqual(run.status, 4, run.stderr)
        XCTAssertTrue(run.stderr.contains("nothing saved"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }
}
#endif
