import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The TLS protocol policy against `openssl s_server` restricted to one version, one cipher suite or
/// one group at a time (issue 27, point 1): what the policy refuses fails in the handshake with a
/// reason naming it, what it allows succeeds, and the metrics say what was negotiated.
final class TLSProtocolPolicyLiveTests: XCTestCase {
    private var servers: TestServerSet!
    private var root: Certificate!
    private var serverPIDs: [pid_t] = []

    override func setUpWithError() throws {
        servers = try Live.servers()
        root = try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))
    }

    override func tearDown() {
        for pid in serverPIDs { kill(pid, SIGTERM) }
        serverPIDs = []
        root = nil
    }

    /// Starts `openssl s_server -www` on a free loopback port with the test PKI's valid chain and
    /// `restrictions`; returns `https://localhost:PORT/`. Killed by its PID in `tearDown`.
    private func sServer(_ restrictions: [String]) throws -> (localhost: String, loopback: String) {
        let arguments = ["openssl", "s_server", "-accept", "127.0.0.1:0", "-www", "-no_dhe",
                         "-cert", servers.pkiFile("leaf.pem").path, "-key", servers.pkiFile("leaf.key").path,
                         "-cert_chain", servers.pkiFile("intermediate-ca.pem").path] + restrictions
        let started = try BackgroundProcess.start(arguments)
        serverPIDs.append(started.pid)
        guard started.firstLine.hasPrefix("ACCEPT "), let port = started.firstLine.split(separator: ":").last.flatMap({ Int($0) })
        else { throw XCTSkip("openssl s_server printed \"\(started.firstLine)\" instead of its address") }
        return ("https://localhost:\(port)/", "https://127.0.0.1:\(port)/")
    }

    private func session(_ policy: TLSProtocolPolicy = .default,
                         hosts: [String: TLSProtocolPolicy] = [:]) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [root]
        configuration.tlsProtocolPolicy = policy
        configuration.tlsProtocolPolicies = hosts
        configuration.timeoutIntervalForRequest = 20
        return SessionManager(configuration: configuration)
    }

    private func get(_ session: SessionManager, _ url: String) async -> DataResponse<Data> {
        await session.request(url).serializingData().response
    }

    private func refusal(_ response: DataResponse<Data>, file: StaticString = #filePath, line: UInt = #line) -> TLSProtocolRefusal? {
        guard case let .tlsProtocolRefused(refusal)? = response.error?.transportErrorCode else {
            XCTFail("expected a TLS protocol refusal, got \(response.debugDescription)", file: file, line: line)
            return nil
        }
        return refusal
    }

    // MARK: - Versions

    func testThatATLS12OnlyServerIsRefusedUnderAMinimumOfTLS13() async throws {
        let server = try sServer(["-tls1_2"])
        let refused = await get(session(TLSProtocolPolicy(minimumVersion: .v1_3)), server.localhost)
        XCTAssertEqual(refusal(refused), .version(minimum: .v1_3, maximum: .v1_3))
        XCTAssertTrue(refused.error?.description.contains("no TLS 1.3") ?? false, "\(String(describing: refused.error))")
        let allowed = await get(session(), server.localhost)
        XCTAssertEqual(allowed.response?.statusCode, 200, allowed.debugDescription)
        XCTAssertEqual(allowed.metrics?.tlsVersion, "TLSv1.2")
    }

    func testThatATLS13OnlyServerIsRefusedUnderAMaximumOfTLS12ForThatHostOnly() async throws {
        let server = try sServer(["-tls1_3"])
        let manager = session(hosts: ["LOCALHOST": TLSProtocolPolicy(maximumVersion: .v1_2)])
        let refused = await get(manager, server.localhost)
        XCTAssertEqual(refusal(refused), .version(minimum: .v1_2, maximum: .v1_2))
        let other = await get(manager, server.loopback)
        XCTAssertEqual(other.response?.statusCode, 200, "127.0.0.1 has no policy of its own: \(other.debugDescription)")
        XCTAssertEqual(other.metrics?.tlsVersion, "TLSv1.3")
    }

    // MARK: - Cipher suites

    func testThatATLS12ServerWithOneCipherIsRefusedWhenThePolicyOffersAnother() async throws {
        let server = try sServer(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])
        let refused = await get(session(TLSProtocolPolicy(cipherList: "ECDHE-ECDSA-AES256-GCM-SHA384")), server.localhost)
        XCTAssertEqual(refusal(refused), .cipherSuites(cipherList: "ECDHE-ECDSA-AES256-GCM-SHA384", tls13CipherSuites: nil))
        let allowed = await get(session(TLSProtocolPolicy(cipherList: "ECDHE-ECDSA-AES128-GCM-SHA256")), server.localhost)
        XCTAssertEqual(allowed.response?.statusCode, 200, allowed.debugDescription)
        XCTAssertEqual(allowed.metrics?.tlsCipher, "ECDHE-ECDSA-AES128-GCM-SHA256")
    }

    func testThatATLS13ServerWithOneSuiteIsRefusedWhenThePolicyOffersAnother() async throws {
        let server = try sServer(["-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"])
        let refused = await get(session(TLSProtocolPolicy(tls13CipherSuites: "TLS_AES_256_GCM_SHA384")), server.localhost)
        XCTAssertEqual(refusal(refused), .cipherSuites(cipherList: nil, tls13CipherSuites: "TLS_AES_256_GCM_SHA384"))
        let allowed = await get(session(TLSProtocolPolicy(tls13CipherSuites: "TLS_AES_128_GCM_SHA256")), server.localhost)
        XCTAssertEqual(allowed.response?.statusCode, 200, allowed.debugDescription)
        XCTAssertEqual(allowed.metrics?.tlsCipher, "TLS_AES_128_GCM_SHA256")
    }

    // MARK: - Groups

    func testThatAServerWithOneGroupIsRefusedWhenThePolicyOffersAnotherAndTheGroupIsInTheMetrics() async throws {
        let server = try sServer(["-tls1_3", "-groups", "X25519"])
        let refused = await get(session(TLSProtocolPolicy(groups: ["P-256"])), server.localhost)
        XCTAssertEqual(refusal(refused), .groups(["P-256"]))
        let allowed = await get(session(TLSProtocolPolicy(groups: ["P-384", "X25519"])), server.localhost)
        XCTAssertEqual(allowed.response?.statusCode, 200, allowed.debugDescription)
        XCTAssertEqual(allowed.metrics?.tlsGroup, "x25519")
    }

    func testThatTheNegotiatedGroupOfADefaultHandshakeIsReported() async throws {
        let server = try sServer(["-tls1_2", "-groups", "P-384"])
        let response = await get(session(), server.localhost)
        XCTAssertEqual(response.response?.statusCode, 200, response.debugDescription)
        XCTAssertEqual(response.metrics?.tlsGroup, "secp384r1")
    }

    // MARK: - Per hop

    func testThatARedirectHopIsHeldToItsOwnHostsPolicy() async throws {
        let server = try sServer(["-tls1_2"])
        let start = try servers.https("valid").absoluteString // https://localhost:PORT, httpbin
        let target = server.loopback.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? server.loopback
        let manager = session(hosts: ["127.0.0.1": TLSProtocolPolicy(minimumVersion: .v1_3)])
        let response = await get(manager, "\(start)/redirect-to?url=\(target)")
        // Only the second hop's host (127.0.0.1) asks for TLS 1.3; localhost's httpbin speaks both.
        XCTAssertEqual(refusal(response), .version(minimum: .v1_3, maximum: .v1_3))
    }
}
