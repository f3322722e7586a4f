import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// HSTS (RFC 6797) against real servers on loopback: an HTTPS `MockServer` whose certificate names
/// `hsts.test` and `sub.hsts.test`, and a plain-HTTP `MockServer` that must never see a connection
/// for a known host. The names reach loopback through `connectTo` with ports: `host:80` goes to the
/// plain server, `host:443` to the TLS one, so an `http://hsts.test/` URL that was not upgraded
/// would land on the plain server — whose connection count is its access log.
final class HSTSTests: XCTestCase {
    private var tls: MockServer!
    private var plain: MockServer!
    private var directory: URL!

    override func setUpWithError() throws {
        tls = try MockServer(tls: .selfSigned(hosts: ["hsts.test", "sub.hsts.test"]))
        plain = try MockServer()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-hsts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        tls.shutdown()
        plain.shutdown()
        tls = nil
        plain = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private func session(store: HSTSStore?, policies: ServerTrustPolicyManager? = nil) throws -> SessionManager {
        var configuration = SessionConfiguration()
        for host in ["hsts.test", "sub.hsts.test"] {
            configuration.connectTo["\(host):80"] = "127.0.0.1:\(plain.port)"
            configuration.connectTo["\(host):443"] = "127.0.0.1:\(tls.port)"
            configuration.connectTo["\(host):\(tls.port)"] = "127.0.0.1:\(tls.port)"
        }
        configuration.trustedRootCertificates = [try XCTUnwrap(tls.certificate)]
        configuration.hstsStore = store
        return SessionManager(configuration: configuration, serverTrustPolicyManager: policies)
    }

    private func get(_ session: SessionManager, _ url: String) async -> DataResponse<Data> {
        await session.request(url).serializingData().response
    }

    private static let learn = MockResponse(statusCode: 200, headers: ["Strict-Transport-Security": "max-age=600; includeSubDomains"],
                                            body: Data("learned".utf8))

    func testThatALearnedHostsHTTPURLIsSentOverHTTPSWithoutTouchingThePlainPort() async throws {
        let store = HSTSStore(fileURL: directory.appendingPathComponent("hsts.txt"))
        let session = try session(store: store)
        tls.enqueue(Self.learn)
        let learned = await get(session, "https://hsts.test/learn")
        XCTAssertNil(learned.error)
        XCTAssertTrue(store.isKnownHost("hsts.test"))

        tls.enqueue(.text("secure"))
        tls.enqueue(.text("secure sub"))
        let first = await get(session, "http://hsts.test/page?q=1")
        let sub = await get(session, "http://sub.hsts.test/other")
        XCTAssertNil(first.error)
        XCTAssertEqual(first.request?.url?.absoluteString, "https://hsts.test/page?q=1")
        XCTAssertEqual(String(decoding: first.data ?? Data(), as: UTF8.self), "secure")
        XCTAssertEqual(sub.request?.url?.absoluteString, "https://sub.hsts.test/other", "includeSubDomains")
        XCTAssertEqual(plain.connectionCount, 0, "no byte went to the plain-HTTP port")
        XCTAssertEqual(plain.requestCount, 0)
        XCTAssertEqual(tls.requestCount, 3)
        XCTAssertEqual(tls.takeRequest()?.path, "/learn")
        XCTAssertEqual(tls.takeRequest()?.path, "/page?q=1")

        XCTAssertTrue(HSTSStore(fileURL: store.fileURL).isKnownHost("sub.hsts.test"), "persisted to the file")
    }

    func testThatARedirectHopToAKnownHostsHTTPURLIsUpgraded() async throws {
        let store = HSTSStore(fileURL: nil)
        store.preload(host: "hsts.test", includeSubdomains: false)
        let session = try session(store: store)
        tls.enqueue(MockResponse(statusCode: 302, headers: ["Location": "http://hsts.test/final"]))
        tls.enqueue(.text("final"))
        let response = await get(session, "https://hsts.test/start")
        XCTAssertNil(response.error)
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.response?.url?.absoluteString, "https://hsts.test/final")
        XCTAssertEqual(plain.connectionCount, 0, "the redirect hop never went to the plain-HTTP port")
        XCTAssertEqual(tls.takeRequest()?.path, "/start")
        XCTAssertEqual(tls.takeRequest()?.path, "/final")
    }

    func testThatAnExplicitNon80PortIsKeptWhenUpgrading() async throws {
        let store = HSTSStore(fileURL: nil)
        store.preload(host: "hsts.test", includeSubdomains: false)
        let session = try session(store: store)
        tls.enqueue(.text("same port"))
        let response = await get(session, "http://hsts.test:\(tls.port)/port")
        XCTAssertNil(response.error)
        XCTAssertEqual(response.request?.url?.absoluteString, "https://hsts.test:\(tls.port)/port")
        XCTAssertEqual(tls.requestCount, 1)
    }

    func testThatMaxAgeZeroRemovesTheHostAndPlainHTTPIsUsedAgain() async throws {
        let store = HSTSStore(fileURL: nil)
        let session = try session(store: store)
        tls.enqueue(Self.learn)
        tls.enqueue(MockResponse(statusCode: 200, headers: ["Strict-Transport-Security": "max-age=0"]))
        _ = await get(session, "https://hsts.test/learn")
        XCTAssertTrue(store.isKnownHost("hsts.test"))
        _ = await get(session, "https://hsts.test/forget")
        XCTAssertFalse(store.isKnownHost("hsts.test"))
        plain.enqueue(.text("plain"))
        let response = await get(session, "http://hsts.test/plain")
        XCTAssertEqual(response.request?.url?.scheme, "http")
        XCTAssertEqual(plain.requestCount, 1, "an unknown host's http:// URL is sent as it is")
    }

    func testThatAHeaderOverPlainHTTPIsIgnored() async throws {
        let store = HSTSStore(fileURL: nil)
        let session = try session(store: store)
        plain.enqueue(MockResponse(statusCode: 200, headers: ["Strict-Transport-Security": "max-age=600"]))
        plain.enqueue(.text("still plain"))
        _ = await get(session, "http://hsts.test/sts-over-http")
        XCTAssertFalse(store.isKnownHost("hsts.test"), "RFC 6797 §8.1: ignored over insecure transport")
        _ = await get(session, "http://hsts.test/again")
        XCTAssertEqual(plain.requestCount, 2)
    }

    func testThatAHeaderFromAServerWhoseTrustWasNotEvaluatedIsIgnored() async throws {
        let store = HSTSStore(fileURL: nil)
        for policy in [ServerTrustPolicy.disableEvaluation, .performDefaultEvaluation(validateHost: false)] {
            let session = try session(store: store, policies: ServerTrustPolicyManager(policies: ["hsts.test": policy]))
            tls.enqueue(Self.learn)
            let response = await get(session, "https://hsts.test/untrusted")
            XCTAssertNil(response.error)
            XCTAssertFalse(store.isKnownHost("hsts.test"), "\(policy)")
        }
    }

    func testThatIPLiteralsAreNeverLearned() async throws {
        let store = HSTSStore(fileURL: nil)
        let ipServer = try MockServer(tls: .selfSigned(hosts: ["127.0.0.1"]))
        defer { ipServer.shutdown() }
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try XCTUnwrap(ipServer.certificate)]
        configuration.hstsStore = store
        let session = SessionManager(configuration: configuration)
        ipServer.enqueue(Self.learn)
        let response = await get(session, ipServer.url("/ip").absoluteString)
        XCTAssertNil(response.error)
        XCTAssertTrue(store.entries.isEmpty)
    }

    func testThatOneStoreIsSharedBetweenSessions() async throws {
        let store = HSTSStore(fileURL: nil)
        let first = try session(store: store)
        let second = try session(store: store)
        tls.enqueue(Self.learn)
        tls.enqueue(.text("via second"))
        _ = await get(first, "https://hsts.test/learn")
        let response = await get(second, "http://hsts.test/shared")
        XCTAssertEqual(response.request?.url?.scheme, "https")
        XCTAssertEqual(plain.connectionCount, 0)
    }
}
