#if CLI
import Foundation
import CurlfireCLIKit
import CurlfireTestSupport
import XCTest

/// The transport flags (issue 26), run through the binary against real servers.
final class CLITransportTests: XCTestCase {
    private var httpbin = ""

    override func setUpWithError() throws {
        httpbin = try CLIServers.shared().httpbin
    }

    func testThatMaxTimeEndsTheWholeRequest() throws {
        let start = Date()
        let run = try CLIHarness.run(["--timeout", "30", "--max-time", "1", httpbin + "/delay/4"])
        XCTAssertEqual(run.status, 6, run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3.5)
    }

    func testThatConnectTimeoutBoundsAHandshakeThatNeverAnswers() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 8), 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let start = Date()
        let run = try CLIHarness.run(["--timeout", "30", "--connect-timeout", "0.5",
                                      "https://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/"])
        XCTAssertEqual(run.status, 6, run.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testThatHTTP2OffersTheUpgrade() throws {
        let run = try CLIHarness.run(["--http2", httpbin + "/headers"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.text.contains("h2c"), run.text)
        XCTAssertFalse(try CLIHarness.run([httpbin + "/headers"]).text.contains("h2c"))
    }

    func testThatNonPositiveLimitsAreUsageErrors() throws {
        XCTAssertEqual(try CLIHarness.run(["--max-time", "0", httpbin + "/get"]).status, 2)
        XCTAssertEqual(try CLIHarness.run(["--connect-timeout", "-1", httpbin + "/get"]).status, 2)
    }
}

/// `--unix-socket` against nginx's Unix socket (scripts/test-servers.py).
final class CLIUnixSocketTests: XCTestCase {
    func testThatUnixSocketReachesNginx() throws {
        let servers = try CLIServers.shared()
        let socket = try XCTUnwrap(servers.nginx_unix_socket, "test-servers.py gives nginx's Unix socket")
        let run = try CLIHarness.run(["--unix-socket", socket, "http://no-tcp.invalid:1/small.txt"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.text, "Hello, Curlfire!\n")
        let missing = try CLIHarness.run(["--unix-socket", socket + ".missing", "http://localhost/small.txt"])
        XCTAssertEqual(missing.status, 8, "a missing socket is a connection failure: \(missing.stderr)")
    }
}

/// `--limit-rate`: the parser (curl's suffixes) and a paced download through the binary.
final class CLILimitRateTests: XCTestCase {
    func testThatRatesParseAsCurlReadsThem() {
        XCTAssertEqual(RateText.bytesPerSecond("1000"), 1000)
        XCTAssertEqual(RateText.bytesPerSecond("400K"), 409_600)
        XCTAssertEqual(RateText.bytesPerSecond("2m"), 2_097_152)
        XCTAssertEqual(RateText.bytesPerSecond("1G"), 1_073_741_824)
        for bad in ["", "0", "-5", "k", "1.5M", "12x", "99999999999999999999", "9999999999999G"] {
            XCTAssertNil(RateText.bytesPerSecond(bad), bad)
        }
    }

    func testThatLimitRatePacesADownloadFromNginx() throws {
        let servers = try CLIServers.shared()
        let nginx = try XCTUnwrap(servers.nginx_http)
        let start = Date()
        let run = try CLIHarness.run(["--limit-rate", "200k", "-o", "/dev/null", nginx + "/large.bin", "Range:bytes=0-409599"])
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(run.status, 0, run.stderr)
        // 400 KiB at 200 KiB/s: at least 2 s less a pacing slack, whatever else happens. The upper bound
        // leaves room for the binary's start, which takes over a second under ThreadSanitizer.
        XCTAssertGreaterThanOrEqual(elapsed, 1.8, "400 KiB at 200 KiB/s arrived faster than the limit")
        XCTAssertLessThan(elapsed, 6, "400 KiB at 200 KiB/s, plus the binary's start")
        XCTAssertEqual(try CLIHarness.run(["--limit-rate", "fast", nginx + "/small.txt"]).status, 2)
    }
}

/// `-4`, `-6` and `--resolve` through the binary, against httpbin on 127.0.0.1 only.
final class CLIDNSTests: XCTestCase {
    func testThatResolveAndTheIPVersionChooseTheAddress() throws {
        let httpbin = try CLIServers.shared().httpbin
        let port = try XCTUnwrap(URL(string: httpbin)?.port)
        let url = "http://dual.curlfire.test:\(port)/get"
        let entry = "dual.curlfire.test:\(port):[::1],127.0.0.1"
        XCTAssertEqual(try CLIHarness.run(["--resolve", entry, "-4", url]).status, 0)
        XCTAssertEqual(try CLIHarness.run(["--resolve", entry, "-6", url]).status, 8, "::1 only, where nothing listens")
        XCTAssertEqual(try CLIHarness.run(["--resolve", "nonsense", url]).status, 2)
        XCTAssertEqual(ResolveText.parse("h:443:[::1],10.0.0.1")?.addresses, ["::1", "10.0.0.1"])
    }
}

/// `--doh-url` through the binary against scripts/doh-server.py (dnslib in the test venv).
final class CLIDoHTests: XCTestCase {
    func testThatDoHURLResolvesANameOnlyTheDoHServerKnows() throws {
        let servers = try CLIServers.shared()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let started = try BackgroundProcess.start([
            root.appendingPathComponent(".venv/bin/python").path, root.appendingPathComponent("scripts/doh-server.py").path,
            "--cert", servers.pkiFile("leaf-chain.pem"), "--key", servers.pkiFile("leaf.key"),
            "--record", "cli-doh.curlfire.test=127.0.0.1", "--parent-pid", String(getpid()),
        ])
        defer { kill(started.pid, SIGTERM) }
        let object = try JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int]
        let dohPort = try XCTUnwrap(object?["https"], started.firstLine)
        let port = try XCTUnwrap(URL(string: servers.httpbin)?.port)
        let url = "http://cli-doh.curlfire.test:\(port)/get"
        let run = try CLIHarness.run(["--doh-url", "https://localhost:\(dohPort)/dns-query",
                                      "--cacert", servers.pkiFile("root-ca.pem"), url])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertNotEqual(try CLIHarness.run([url]).status, 0, "the system resolver does not know the name")
        XCTAssertEqual(try CLIHarness.run(["--doh-url", "http://localhost:1/", url]).status, 2)
    }
}
#endif
