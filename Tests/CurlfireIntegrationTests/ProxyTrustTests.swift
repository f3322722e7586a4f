@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// An HTTPS proxy (squid's TLS port, presenting the test PKI's `otherkey` leaf for localhost without
/// its intermediate) with its own trust, kept apart from the origin's: the origin behind the
/// `CONNECT` tunnel is judged by the session's ``ServerTrustPolicy`` for the origin host, and a pin
/// mismatch there fails exactly as without a proxy.
final class ProxyTrustTests: XCTestCase {
    private struct Setup {
        let servers: TestServerSet
        let squid: TestServerSet.SquidProxy
        let root: Certificate
        let intermediate: Certificate
        let leafKey: PublicKey
        let proxyKey: PublicKey
    }

    private func setup() throws -> Setup {
        let servers = try TestServers.withSquid()
        let leaf = try Certificate(contentsOf: servers.pkiFile("leaf.pem"))
        let proxyLeaf = try XCTUnwrap(Certificate.certificates(fromPEM: Data(contentsOf: servers.pkiFile("otherkey-chain.pem"))).first)
        return Setup(servers: servers, squid: try XCTUnwrap(servers.squid),
                     root: try Certificate(contentsOf: servers.pkiFile("root-ca.pem")),
                     intermediate: try Certificate(contentsOf: servers.pkiFile("intermediate-ca.pem")),
                     leafKey: try XCTUnwrap(leaf.publicKey), proxyKey: try XCTUnwrap(proxyLeaf.publicKey))
    }

    /// A session whose origin `localhost` is pinned to the valid leaf's key.
    private func session(_ setup: Setup, proxied: Bool, proxyTrust: SessionConfiguration.ProxyTrust?) -> SessionManager {
        var configuration = SessionConfiguration()
        if proxied {
            configuration.proxy = .https(host: "localhost", port: setup.squid.https_port,
                                         credentials: URLCredential(user: setup.squid.user, password: setup.squid.password,
                                                                    persistence: .none))
        }
        configuration.proxyTrust = proxyTrust
        configuration.trustedRootCertificates = [setup.root]
        let policies = ServerTrustPolicyManager(policies: [
            "localhost": .pinPublicKeys(publicKeys: [setup.leafKey], validateCertificateChain: true, validateHost: true),
        ])
        return SessionManager(configuration: configuration, serverTrustPolicyManager: policies)
    }

    private func proxyTrust(_ setup: Setup, pins: [PublicKey] = []) -> SessionConfiguration.ProxyTrust {
        // squid sends its leaf alone: the proxy's trust holds the intermediate too.
        SessionConfiguration.ProxyTrust(trustedRootCertificates: [setup.root, setup.intermediate], pinnedPublicKeys: pins)
    }

    func testThatTheOriginsPinJudgesOnlyTheOriginBehindTheProxy() async throws {
        let setup = try setup()
        let origin = try setup.servers.https("valid").absoluteString + "/get"
        // The proxy's key is not the origin's pin: had the origin's policy judged the proxy, this would fail.
        let manager = session(setup, proxied: true, proxyTrust: proxyTrust(setup, pins: [setup.proxyKey]))
        let response = await manager.request(origin).validate().serializingData().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatAnOriginPinMismatchBehindTheProxyFailsAsWithoutOne() async throws {
        let setup = try setup()
        let origin = try setup.servers.https("otherkey").absoluteString + "/get"
        let direct = await session(setup, proxied: false, proxyTrust: nil).request(origin).serializingData().response
        let proxied = await session(setup, proxied: true, proxyTrust: proxyTrust(setup)).request(origin).serializingData().response
        guard case let .serverTrustEvaluationFailed(host, reason)? = proxied.error else {
            return XCTFail(proxied.debugDescription)
        }
        XCTAssertEqual(host, "localhost")
        XCTAssertEqual("\(reason)", "\(CurlfireError.ServerTrustFailureReason.publicKeyPinMismatch)")
        XCTAssertEqual(proxied.error.map { "\($0)" }, direct.error.map { "\($0)" }, "the same error as without a proxy")
        XCTAssertNil(proxied.response)
    }

    func testThatTheProxysOwnTrustIsSeparateFromTheOrigins() async throws {
        let setup = try setup()
        let origin = try setup.servers.https("valid").absoluteString + "/get"
        let proxyHost = "localhost"
        // The session trusts the test root for origins, but the proxy's trust is the system's: refused.
        let systemOnly = await session(setup, proxied: true, proxyTrust: nil).request(origin).serializingData().response
        guard case .serverTrustEvaluationFailed(host: proxyHost, reason: .chainInvalid)? = systemOnly.error else {
            return XCTFail(systemOnly.debugDescription)
        }
        // Its own roots, but a pin for another key: refused by the pin.
        let wrongPin = await session(setup, proxied: true, proxyTrust: proxyTrust(setup, pins: [setup.leafKey]))
            .request(origin).serializingData().response
        guard case .serverTrustEvaluationFailed(host: proxyHost, reason: .publicKeyPinMismatch)? = wrongPin.error else {
            return XCTFail(wrongPin.debugDescription)
        }
        // Its own roots and pin: through.
        let through = await session(setup, proxied: true, proxyTrust: proxyTrust(setup, pins: [setup.proxyKey]))
            .request(origin).validate().serializingData().response
        XCTAssertNil(through.error, through.debugDescription)
    }
}
