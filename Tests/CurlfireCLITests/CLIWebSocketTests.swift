#if CLI
import CurlfireTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `curlfire --ws`: stdin lines out as messages, messages printed, against scripts/ws-test-server.py
/// (one per test case). The echo test uses the frame-level `/echo-raw` over TLS (`wss-fault`): the
/// `websockets` `/echo` answers the close that follows stdin's end at once, and so could drop the
/// echo of a line that reached it in the same read as the close (seen once in CI).
final class CLIWebSocketTests: XCTestCase {
    private var port = 0
    /// The raw fault server over TLS (`wss-fault`).
    private var faultPort = 0

    override func setUpWithError() throws {
        let servers = try CLIServers.shared() // the venv
        let root = CLIHarness.repositoryRoot
        let started = try BackgroundProcess.start([
            root + "/.venv/bin/python", root + "/scripts/ws-test-server.py",
            "--cert", servers.pkiFile("leaf-chain.pem"), "--key", servers.pkiFile("leaf.key"),
            "--parent-pid", String(getpid()),
        ])
        addTeardownBlock { kill(started.pid, SIGTERM) }
        let ports = try JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int]
        port = try XCTUnwrap(ports?["wss"], "ws-test-server.py printed \(started.firstLine)")
        faultPort = try XCTUnwrap(ports?["wss-fault"], "ws-test-server.py printed \(started.firstLine)")
    }

    private func run(_ arguments: [String], input: String) throws -> CLIRun {
        let binary = try XCTUnwrap(CLIHarness.binary, "the curlfire binary was not found next to the test bundle")
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-ws-\(UUID().uuidString).err").path
        defer { unlink(errorFile) }
        let result = try Subprocess.run([binary] + arguments, input: Data(input.utf8), errorOutput: .file(errorFile))
        return CLIRun(status: result.status, stdout: result.output,
                      stderr: (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "")
    }

    func testThatStdinLinesAreEchoedOverWSSWithTheCACertificate() throws {
        let ca = try CLIServers.shared().pkiFile("root-ca.pem")
        let result = try run(["--ws", "--cacert", ca, "wss://localhost:\(faultPort)/echo-raw"], input: "hello\nwörld\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.text, "hello\nwörld\n")
    }

    func testThatAWrongPinFailsWithTheTLSExitCode() throws {
        let ca = try CLIServers.shared().pkiFile("root-ca.pem")
        let result = try run(["--ws", "--cacert", ca, "--pin", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                              "wss://localhost:\(port)/echo"], input: "hello\n")
        XCTAssertEqual(result.status, 7, result.stderr)
        XCTAssertEqual(result.text, "")
    }

    func testThatServerCloseCodeIsReportedWithVerbose() throws {
        let ca = try CLIServers.shared().pkiFile("root-ca.pem")
        let result = try run(["--ws", "-v", "--cacert", ca, "wss://localhost:\(port)/close?code=4001&reason=bye"], input: "")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("closed 4001 bye"), result.stderr)
    }
}
#endif
