import Curlfire
import Foundation
import CurlfireTestSupport
import FoundationNetworking
import XCTest

/// DNS control against httpbin on 127.0.0.1 (issue 26, point 4): fixed addresses for a name no
/// resolver knows, the IP version chosen among them, the DNS cache lifetime and the Happy
/// Eyeballs delay.
final class DNSControlTests: XCTestCase {
    private func httpbinPort() throws -> Int { try XCTUnwrap(try Live.servers().httpbin.port) }

    private struct Echo: Decodable { let headers: [String: String] }

    func testThatAFixedAddressAnswersForANameNoResolverKnows() async throws {
        let port = try httpbinPort()
        var configuration = SessionConfiguration()
        configuration.hostResolutions = [.init(host: "curlfire-static.test", port: port, addresses: ["127.0.0.1"])]
        configuration.dnsCacheLifetime = 0
        configuration.happyEyeballsDelay = 0.05
        let response = await SessionManager(configuration: configuration)
            .request("http://curlfire-static.test:\(port)/headers").serializingDecodable(Echo.self).response
        XCTAssertEqual(try response.result.get().headers["Host"], "curlfire-static.test:\(port)", "the name stays the Host")
        let unknown = await SessionManager().request("http://curlfire-static.test:\(port)/get").serializingData().response
        XCTAssertEqual(unknown.error?.transportErrorCode, .cannotResolveHost, "without the entry the name is unknown")
    }

    func testThatTheIPVersionChoosesAmongTheAddresses() async throws {
        // The name has ::1 and 127.0.0.1; httpbin listens on 127.0.0.1 only.
        let port = try httpbinPort()
        func status(_ version: SessionConfiguration.IPVersion) async -> DataResponse<Data> {
            var configuration = SessionConfiguration()
            configuration.ipVersion = version
            configuration.hostResolutions = [.init(host: "dual.curlfire.test", port: port, addresses: ["::1", "127.0.0.1"])]
            return await SessionManager(configuration: configuration)
                .request("http://dual.curlfire.test:\(port)/get").serializingData().response
        }
        let v4 = await status(.v4)
        XCTAssertEqual(v4.response?.statusCode, 200, "\(v4.debugDescription)")
        XCTAssertEqual(v4.metrics?.remoteAddress, "127.0.0.1")
        let v6 = await status(.v6)
        XCTAssertEqual(v6.error?.transportErrorCode, .cannotConnect, "only ::1, where nothing listens: \(v6.debugDescription)")
        let any = await status(.any)
        XCTAssertEqual(any.response?.statusCode, 200, "Happy Eyeballs falls back to IPv4: \(any.debugDescription)")
    }

    func testThatAnUnusableEntryIsATypedError() async throws {
        var configuration = SessionConfiguration()
        configuration.hostResolutions = [.init(host: "bad.test", port: 80, addresses: ["not-an-address"])]
        let response = await SessionManager(configuration: configuration).request(try Live.httpbin("/get"))
            .serializingData().response
        guard case .invalidHostResolution(host: "bad.test")? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
    }
}

/// DNS over HTTPS against scripts/doh-server.py (dnslib, pinned in the test venv) behind TLS with
/// the test PKI's `localhost` certificate: it answers a name no system resolver knows.
final class DNSOverHTTPSTests: XCTestCase {
    private static let name = "only-doh.curlfire.test"

    /// Starts the DoH server (after the test servers, which make the venv and the PKI); its URL.
    private func startDoH(certificate: String = "leaf-chain.pem", key: String = "leaf.key") throws -> (url: URL, pid: pid_t) {
        let servers = try Live.servers()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let started = try BackgroundProcess.start([
            root.appendingPathComponent(".venv/bin/python").path, root.appendingPathComponent("scripts/doh-server.py").path,
            "--cert", servers.pkiFile(certificate).path, "--key", servers.pkiFile(key).path,
            "--record", "\(Self.name)=127.0.0.1", "--parent-pid", String(getpid()),
        ])
        let object = try JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int]
        let port = try XCTUnwrap(object?["https"], "doh-server.py printed \(started.firstLine)")
        return (try XCTUnwrap(URL(string: "https://localhost:\(port)/dns-query")), started.pid)
    }

    func testThatANameOnlyTheDoHServerKnowsIsResolvedThroughIt() async throws {
        let doh = try startDoH()
        defer { kill(doh.pid, SIGTERM) }
        let port = try XCTUnwrap(try Live.servers().httpbin.port)
        var configuration = SessionConfiguration()
        configuration.dnsOverHTTPSURL = doh.url
        configuration.trustedRootCertificates = [try Certificate(contentsOf: try Live.servers().pkiFile("root-ca.pem"))]
        let response = await SessionManager(configuration: configuration)
            .request("http://\(Self.name):\(port)/get").serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200, "\(response.debugDescription)")

        let system = await SessionManager().request("http://\(Self.name):\(port)/get").serializingData().response
        XCTAssertEqual(system.error?.transportErrorCode, .cannotResolveHost, "the system resolver does not know it")

        var untrusted = SessionConfiguration()
        untrusted.dnsOverHTTPSURL = doh.url // the test CA is not among the system roots
        let refused = await SessionManager(configuration: untrusted)
            .request("http://\(Self.name):\(port)/get").serializingData().response
        XCTAssertNil(refused.response, "a DoH server the session does not trust resolves nothing: \(refused.debugDescription)")
    }

    /// libcurl's DoH queries inherit the origin's TLS callback (and its `VERIFYHOST`): the resolver
    /// must be judged as itself, neither refused by the origin's pin nor let through by the origin's
    /// disabled evaluation.
    func testThatTheResolverIsJudgedByItsOwnTrustNotByTheOriginsPolicy() async throws {
        let servers = try Live.servers()
        let doh = try startDoH(certificate: "otherkey-chain.pem", key: "otherkey.key") // not the origin's key
        defer { kill(doh.pid, SIGTERM) }
        let port = try XCTUnwrap(try servers.https("valid").port)
        let url = "https://\(Self.name):\(port)/get"
        let leafKey = try XCTUnwrap(try Certificate(contentsOf: servers.pkiFile("leaf.pem")).publicKey)

        var trusting = SessionConfiguration()
        trusting.dnsOverHTTPSURL = doh.url
        trusting.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        let pinned = SessionManager(configuration: trusting, serverTrustPolicyManager: ServerTrustPolicyManager(policies: [
            Self.name: .pinPublicKeys(publicKeys: [leafKey], validateCertificateChain: true, validateHost: false),
        ]))
        let response = await pinned.request(url).serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200,
                       "the origin's pin must not be applied to the resolver's certificate: \(response.debugDescription)")

        var untrusted = SessionConfiguration()
        untrusted.dnsOverHTTPSURL = doh.url // the test CA is not among the system roots
        let disabled = SessionManager(configuration: untrusted, serverTrustPolicyManager: ServerTrustPolicyManager(policies: [
            Self.name: .disableEvaluation,
        ]))
        let refused = await disabled.request(url).serializingData().response
        XCTAssertNil(refused.response,
                     "the origin's disabled evaluation must not exempt an untrusted resolver: \(refused.debugDescription)")
        XCTAssertEqual(refused.error?.transportErrorCode, .cannotResolveHost, "\(refused.debugDescription)")
    }
}
