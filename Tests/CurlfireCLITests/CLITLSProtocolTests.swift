#if CLI
import CurlfireTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--tlsv1.3`, `--tls-max`, `--ciphers`, `--tls13-ciphers` and `--curves` against `openssl s_server`
/// restricted to one version, cipher and group.
final class CLITLSProtocolTests: XCTestCase {
    private var servers: CLIServers!
    private var serverPIDs: [pid_t] = []

    override func setUpWithError() throws {
        servers = try CLIServers.shared()
    }

    override func tearDown() {
        for pid in serverPIDs { kill(pid, SIGTERM) }
        serverPIDs = []
    }

    /// `openssl s_server -www` on a free loopback port with the valid chain; killed in `tearDown`.
    private func sServer(_ restrictions: [String]) throws -> String {
        let started = try BackgroundProcess.start(["openssl", "s_server", "-accept", "127.0.0.1:0", "-www", "-no_dhe",
                                                   "-cert", servers.pkiFile("leaf.pem"), "-key", servers.pkiFile("leaf.key"),
                                                   "-cert_chain", servers.pkiFile("intermediate-ca.pem")] + restrictions)
        serverPIDs.append(started.pid)
        let port = try XCTUnwrap(started.firstLine.split(separator: ":").last.flatMap { Int($0) }, started.firstLine)
        return "https://localhost:\(port)/"
    }

    func testThatTLSv13AgainstATLS12ServerExitsWithSevenNamingTheVersion() throws {
        let url = try sServer(["-tls1_2"])
        let run = try CLIHarness.run(["--cacert", servers.pkiFile("root-ca.pem"), "--tlsv1.3", url])
        XCTAssertEqual(run.status, 7, run.stderr)
        XCTAssertTrue(run.stderr.contains("no TLS 1.3"), run.stderr)
    }

    func testThatTheAllowedVersionCipherAndCurveAreNegotiatedAndShown() throws {
        // TLS 1.2 with an ECDSA certificate also needs the certificate's curve (P-256) among the
        // client's groups; the server's only key-exchange group is P-384.
        let url = try sServer(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256", "-groups", "P-384"])
        let root = servers.pkiFile("root-ca.pem")
        let run = try CLIHarness.run(["--cacert", root, "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256",
                                      "--curves", "P-384:P-256", "--timeline", url])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256 secp384r1"), run.stderr)
        let curve = try CLIHarness.run(["--cacert", root, "--curves", "X25519", url])
        XCTAssertEqual(curve.status, 7, curve.stderr)
        XCTAssertTrue(curve.stderr.contains("none of the groups X25519"), curve.stderr)
        let cipher = try CLIHarness.run(["--cacert", root, "--ciphers", "ECDHE-ECDSA-AES256-GCM-SHA384", url])
        XCTAssertEqual(cipher.status, 7, cipher.stderr)
        XCTAssertTrue(cipher.stderr.contains("none of the cipher suites ECDHE-ECDSA-AES256-GCM-SHA384"), cipher.stderr)
    }

    func testThatTLS13CiphersRestrictTheTLS13Suites() throws {
        let url = try sServer(["-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"])
        let root = servers.pkiFile("root-ca.pem")
        let refused = try CLIHarness.run(["--cacert", root, "--tls13-ciphers", "TLS_AES_256_GCM_SHA384", url])
        XCTAssertEqual(refused.status, 7, refused.stderr)
        let allowed = try CLIHarness.run(["--cacert", root, "--tls13-ciphers", "TLS_AES_128_GCM_SHA256", "--timeline", url])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("TLSv1.3 TLS_AES_128_GCM_SHA256"), allowed.stderr)
    }

    func testThatAnUnknownTLSMaxOrAnEmptyRangeIsAUsageError() throws {
        for arguments in [["--tls-max", "1.4"], ["--tlsv1.3", "--tls-max", "1.2"]] {
            let run = try CLIHarness.run(arguments + ["https://localhost:1/"])
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--tls"), run.stderr)
        }
    }
}
#endif
