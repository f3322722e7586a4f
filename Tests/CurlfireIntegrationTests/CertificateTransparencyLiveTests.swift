import Curlfire
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// ``SessionConfiguration/certificateTransparencyPolicies`` in the handshake, against
/// `openssl s_server` serving `ct.test` certificates made by scripts/make-test-ct.py: SCTs embedded
/// in the certificate (precertificate flow) and SCTs delivered in the TLS extension
/// (`-serverinfo`). `ct.test` reaches loopback through `connectTo`.
final class CertificateTransparencyLiveTests: XCTestCase {
    private struct FixtureError: Error { let message: String }

    /// The test PKI directory, with ct/ made by scripts/make-test-ct.py once per process.
    private static let fixtures: Result<URL, FixtureError> = {
        let pki: URL
        do { pki = try Live.servers().pkiFile("root-ca.pem").deletingLastPathComponent() } catch {
            return .failure(FixtureError(message: "test servers: \(error)"))
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-test-ct.py").path
        let status = CertificateTransparencyLiveTests.spawnAndWait(["/usr/bin/env", "python3", script, pki.path])
        return status == 0 ? .success(pki) : .failure(FixtureError(message: "make-test-ct.py exited \(status)"))
    }()

    private var serverPID: pid_t = 0

    override func tearDown() {
        if serverPID > 0 {
            kill(serverPID, SIGKILL) // SIGTERM may be blocked: posix_spawn inherits the test process's signal mask
            var status: Int32 = 0
            waitpid(serverPID, &status, 0)
            serverPID = 0
        }
    }

    private static func spawn(_ arguments: [String]) -> pid_t {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return 0 }
        return pid
    }

    private static func spawnAndWait(_ arguments: [String]) -> Int32 {
        let pid = spawn(arguments)
        guard pid > 0 else { return -1 }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8) & 0xFF
    }

    /// A free loopback port (bound, then released for s_server).
    private func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `openssl s_server -www` for `certificate` (in ct/), optionally with a serverinfo file.
    private func startServer(_ certificate: String, serverinfo: String? = nil) throws -> Int {
        let pki = try Self.fixtures.get()
        let ct = pki.appendingPathComponent("ct")
        let port = freePort()
        var arguments = ["/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-www", "-quiet",
                         "-cert", ct.appendingPathComponent(certificate).path,
                         "-key", ct.appendingPathComponent("leaf.key").path,
                         "-cert_chain", pki.appendingPathComponent("intermediate-ca.pem").path]
        if let serverinfo { arguments += ["-serverinfo", ct.appendingPathComponent(serverinfo).path] }
        serverPID = Self.spawn(arguments)
        XCTAssertGreaterThan(serverPID, 0)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return port }
            usleep(50_000)
        }
        throw FixtureError(message: "openssl s_server did not start")
    }

    private func get(_ certificate: String, serverinfo: String? = nil, minimum: Int = 2) async throws -> DataResponse<Data> {
        let port = try startServer(certificate, serverinfo: serverinfo)
        let pki = try Self.fixtures.get()
        var configuration = SessionConfiguration()
        configuration.connectTo = ["ct.test": "127.0.0.1"]
        configuration.trustedRootCertificates = [try Certificate(contentsOf: pki.appendingPathComponent("root-ca.pem"))]
        let logs = try CTLogList(contentsOf: pki.appendingPathComponent("ct/log-list.json"))
        configuration.certificateTransparencyPolicies = ["*.test": CertificateTransparencyPolicy(logList: logs, minimumSCTs: minimum)]
        configuration.httpVersion = .http1_1
        let session = SessionManager(configuration: configuration)
        return await session.request("https://ct.test:\(port)/").serializingData().response
    }

    private func problems(_ response: DataResponse<Data>) -> String? {
        guard case let .serverTrustEvaluationFailed(host, .insufficientSignedCertificateTimestamps(_, _, problems))? = response.error,
              host == "ct.test" else { return nil }
        return problems.joined(separator: "; ")
    }

    func testThatEmbeddedSCTsFromTwoOperatorsAreAccepted() async throws {
        let response = try await get("embedded-2ops-chain.pem")
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatSCTsFromOneOperatorAreRejectedInTheHandshake() async throws {
        let response = try await get("embedded-sameop-chain.pem")
        let text = try XCTUnwrap(problems(response), response.debugDescription)
        XCTAssertTrue(text.contains("Operator A"), text)
        XCTAssertNil(response.response, "rejected before any request byte")
    }

    func testThatABadSignatureIsNamed() async throws {
        let response = try await get("embedded-badsig-chain.pem")
        let text = try XCTUnwrap(problems(response), response.debugDescription)
        XCTAssertTrue(text.contains("invalid signature"), text)
    }

    func testThatSCTsFromTheTLSExtensionAreAccepted() async throws {
        let response = try await get("plain-chain.pem", serverinfo: "plain-serverinfo.pem")
        XCTAssertNil(response.error, response.debugDescription)
    }

    func testThatACertificateWithoutSCTsIsRejected() async throws {
        let response = try await get("plain-chain.pem")
        let text = try XCTUnwrap(problems(response), response.debugDescription)
        XCTAssertTrue(text.contains("no SCT"), text)
    }
}
