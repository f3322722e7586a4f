#if CLI
import Foundation
import CurlfireCLIKit
import XCTest

/// `--proxy`, `--proxy-user` and `--noproxy` through the binary against the real squid of
/// scripts/test-servers.py --squid (its access log shows what came through it).
final class CLIProxyTests: XCTestCase {
    private func squidLines(_ servers: CLIServers, containing needle: String, timeout: TimeInterval = 3) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let text = servers.logs["squid"].flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            let lines = text.split(separator: "\n").map(String.init).filter { $0.contains(needle) }
            if !lines.isEmpty || Date() >= deadline { return lines }
            usleep(50_000)
        }
    }

    func testThatProxyAndProxyUserGoThroughSquid() throws {
        let (servers, squid) = try CLIServers.withSquid()
        let marker = "cli-proxy-\(UUID().uuidString.prefix(8))"
        let run = try CLIHarness.run(["--check-status", "--proxy", "127.0.0.1:\(squid.http_port)",
                                      "--proxy-user", "\(squid.user):\(squid.password)", servers.httpbin + "/get?\(marker)"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let served = squidLines(servers, containing: marker).filter { $0.contains("TCP_MISS/200") }
        XCTAssertEqual(served.count, 1, "\(squidLines(servers, containing: marker))")
        XCTAssertTrue(served.first?.contains(" \(squid.user) ") == true, "\(served)")
    }

    func testThatAWrongProxyPasswordIsAConnectionFailure() throws {
        let (servers, squid) = try CLIServers.withSquid()
        let run = try CLIHarness.run(["--proxy", "http://127.0.0.1:\(squid.http_port)", "--proxy-user", "\(squid.user):wrong",
                                      servers.httpbin + "/get"])
        XCTAssertEqual(run.status, 8, run.stderr)
        XCTAssertTrue(run.stderr.contains("requires authentication"), run.stderr)
    }

    func testThatNoproxyGoesDirect() throws {
        let (servers, squid) = try CLIServers.withSquid()
        let marker = "cli-noproxy-\(UUID().uuidString.prefix(8))"
        let run = try CLIHarness.run(["--check-status", "--proxy", "127.0.0.1:\(squid.http_port)", "--noproxy", "example.test, 127.0.0.0/8",
                                      servers.httpbin + "/get?\(marker)"])
        XCTAssertEqual(run.status, 0, "no credentials were needed: the proxy was not used. \(run.stderr)")
        XCTAssertTrue(squidLines(servers, containing: marker, timeout: 1).isEmpty)
    }

    func testThatProxyValuesParseAsCurlReadsThem() {
        XCTAssertEqual(ProxyText.parse("proxy.test"), .http(host: "proxy.test", port: 1080))
        XCTAssertEqual(ProxyText.parse("https://proxy.test"), .https(host: "proxy.test", port: 443))
        XCTAssertEqual(ProxyText.parse("socks5h://[::1]:1081"), .socks5(host: "::1", port: 1081))
        XCTAssertEqual(ProxyText.parse("SOCKS5://127.0.0.1:9050/"), .socks5(host: "127.0.0.1", port: 9050))
        for bad in ["", "ftp://p:21", "http://:80", "p:0", "p:x", "[::1", "u:p@host:1"] {
            XCTAssertNil(ProxyText.parse(bad), bad)
        }
        XCTAssertEqual(ProxyText.credential("u:p:w")?.password, "p:w")
        XCTAssertNil(ProxyText.credential("nocolon"))
    }

    func testThatProxyUserWithoutProxyIsAUsageError() throws {
        let run = try CLIHarness.run(["--proxy-user", "u:p", "http://127.0.0.1:1/"])
        XCTAssertEqual(run.status, 2, run.stderr)
        let bad = try CLIHarness.run(["--proxy", "ftp://127.0.0.1:21", "http://127.0.0.1:1/"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }
}
#endif
