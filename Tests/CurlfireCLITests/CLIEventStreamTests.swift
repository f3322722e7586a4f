#if CLI
import CurlfireTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `curlfire --sse`: events printed as they arrive, reconnection, trust options and Ctrl-C, against
/// scripts/sse-test-server.py (sse-starlette under uvicorn and, over TLS, Hypercorn).
final class CLIEventStreamTests: XCTestCase {
    private var http = 0
    private var h2 = 0

    override func setUpWithError() throws {
        let servers = try CLIServers.shared() // the venv and the PKI
        let root = CLIHarness.repositoryRoot
        let started = try BackgroundProcess.start([
            root + "/.venv/bin/python", root + "/scripts/sse-test-server.py",
            "--cert", servers.pkiFile("leaf-chain.pem"), "--key", servers.pkiFile("leaf.key"),
            "--parent-pid", String(getpid()),
        ])
        addTeardownBlock { kill(started.pid, SIGTERM) }
        let ports = try JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int]
        http = try XCTUnwrap(ports?["http"], "sse-test-server.py printed \(started.firstLine)")
        h2 = try XCTUnwrap(ports?["h2"], "sse-test-server.py printed \(started.firstLine)")
    }

    func testThatEventsArePrintedAcrossReconnectionsUntilTheServerSends204() throws {
        let run = try CLIHarness.run(["--sse", "http://127.0.0.1:\(http)/feed?total=4&per=2&retry=50"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let expected = (1...4).map { "event: tick\nid: \($0)\ndata: {\"n\": \($0), \"version\": \"1.1\"}\n\n" }.joined()
        XCTAssertEqual(run.text, expected)
    }

    func testThatCACertAndPinApplyOverHTTP2() throws {
        let servers = try CLIServers.shared()
        let ca = servers.pkiFile("root-ca.pem")
        let ok = try CLIHarness.run(["--sse", "--sse-once", "--cacert", ca, "https://localhost:\(h2)/feed?total=2&per=2"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.text.contains("data: {\"n\": 2, \"version\": \"2\"}"), ok.text)
        let pinned = try CLIHarness.run(["--sse", "--cacert", ca, "--pin", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                                         "https://localhost:\(h2)/feed?total=2&per=2"])
        XCTAssertEqual(pinned.status, 7, pinned.stderr)
        XCTAssertEqual(pinned.text, "")
    }

    func testThatCtrlCEndsAnEndlessStreamCleanly() throws {
        let binary = try XCTUnwrap(CLIHarness.binary)
        let out = try CLIHarness.temporaryDirectory(self) + "/ticks.out"
        // Job control on, so the background job does not start with SIGINT ignored.
        let script = "set -m; \"$0\" --sse \"$1\" >\"$2\" 2>\"$2.err\" & pid=$!; sleep 1.5; kill -INT $pid; wait $pid; echo $?"
        let status = try Subprocess.runShell(script, binary, "http://127.0.0.1:\(http)/ticks?interval=0.05", out)
        let stderr = (try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? ""
        XCTAssertEqual(status.trimmingCharacters(in: .whitespacesAndNewlines), "0", stderr)
        XCTAssertEqual(stderr, "")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("event: tick\nid: 1\ndata: 1\n\n"), text)
        XCTAssertTrue(text.hasSuffix("\n\n"), "whole events only")
    }
}
#endif
