@testable import Curlfire
internal import CCurl
import Foundation
import FoundationNetworking
import XCTest

/// The plan of one hop, read without libcurl: each hop is planned for its own host's trust, CA
/// store and client identity, and libcurl is never left to follow a redirect with the first hop's.
final class AttemptPlanTests: XCTestCase {
    /// Records what a plan would set.
    struct Recorder: CurlOptionWriter {
        var longs: [UInt32: Int] = [:]
        var strings: [UInt32: String?] = [:]
        var offsets: [UInt32: Int64] = [:]
        var blobs: [UInt32: [UInt8]] = [:]
        var trust: [any TLSContextConfiguring] = []

        mutating func long(_ option: CURLoption, _ value: Int) { longs[option.rawValue] = value }
        mutating func string(_ option: CURLoption, _ value: String?) { strings[option.rawValue] = .some(value) }
        mutating func offset(_ option: CURLoption, _ value: Int64) { offsets[option.rawValue] = value }
        mutating func blob(_ option: CURLoption, _ value: [UInt8]) { blobs[option.rawValue] = value }
        mutating func trustEvaluation(_ trust: any TLSContextConfiguring) { self.trust.append(trust) }

        /// The host whose policy evaluates the handshake, if a trust bridge is installed.
        var trustHost: String? { (trust.first as? TLSTrustBridge)?.host }
    }

    private func plan(_ session: SessionManager, _ url: String, method: String = "GET", body: UploadBody = .none,
                      headers: [String: String] = [:]) throws -> (AttemptPlan, Recorder) {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let options = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        let plan = AttemptPlan(request: request, body: body, options: options)
        var recorder = Recorder()
        plan.write(to: &recorder)
        return (plan, recorder)
    }

    func testThatEachHopGetsThePolicyOfItsOwnHost() throws {
        let session = SessionManager(serverTrustPolicyManager: ServerTrustPolicyManager(policies: [
            "localhost": .disableEvaluation,
        ]))
        let (_, first) = try plan(session, "https://localhost:8443/redirect-to?url=https://127.0.0.1:9443/get")
        XCTAssertEqual(first.trustHost, "localhost")
        XCTAssertEqual(first.longs[CURLOPT_SSL_VERIFYHOST.rawValue], 0, "the policy checks the host itself")
        let (_, second) = try plan(session, "https://127.0.0.1:9443/get")
        XCTAssertNil(second.trustHost, "127.0.0.1 has no policy: libcurl's own verification, not localhost's bypass")
        XCTAssertEqual(second.longs[CURLOPT_SSL_VERIFYHOST.rawValue], 2)
        XCTAssertEqual(second.longs[CURLOPT_SSL_VERIFYPEER.rawValue], 1)
    }

    func testThatLibcurlNeverFollowsRedirects() throws {
        let session = SessionManager()
        for url in ["http://127.0.0.1:1/redirect/3", "https://localhost:1/get"] {
            let (_, options) = try plan(session, url)
            XCTAssertEqual(options.longs[CURLOPT_FOLLOWLOCATION.rawValue], 0, url)
        }
    }

    func testThatAHostWithoutAPolicyUsesTheSessionRootsThroughItsOwnBridge() throws {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try TrustTestPKI.certificate("root-ca.pem")]
        let session = SessionManager(configuration: configuration, serverTrustPolicyManager: ServerTrustPolicyManager(
            policies: ["localhost": .pinPublicKeys(publicKeys: [], validateCertificateChain: true, validateHost: true)]))
        let (_, pinned) = try plan(session, "https://localhost:1/")
        let (_, other) = try plan(session, "https://127.0.0.1:1/")
        XCTAssertEqual(pinned.trustHost, "localhost")
        XCTAssertEqual(other.trustHost, "127.0.0.1")
        XCTAssertFalse(pinned.trust.first === other.trust.first, "one bridge per host, never shared across hosts")
        let (_, again) = try plan(session, "https://LOCALHOST:1/other")
        XCTAssertTrue(pinned.trust.first === again.trust.first, "a host's bridge is fixed for the session's life")
    }

    func testThatTheClientIdentityIsChosenPerHost() throws {
        final class Manager: ServerTrustPolicyManager, @unchecked Sendable {
            override func clientIdentity(forHost host: String) -> ClientIdentity? {
                host == "mtls.example" ? ClientIdentity(certificateChainFile: URL(fileURLWithPath: "/tmp/client.pem"),
                                                        privateKeyFile: URL(fileURLWithPath: "/tmp/client.key")) : nil
            }
        }
        let session = SessionManager(serverTrustPolicyManager: Manager(policies: [:]))
        let (_, asked) = try plan(session, "https://mtls.example/")
        let (_, other) = try plan(session, "https://other.example/")
        XCTAssertEqual(asked.strings[CURLOPT_SSLCERT.rawValue], .some("/tmp/client.pem"))
        XCTAssertEqual(asked.strings[CURLOPT_SSLKEY.rawValue], .some("/tmp/client.key"))
        XCTAssertFalse(other.strings.keys.contains(CURLOPT_SSLCERT.rawValue), "another host is not shown the identity")
    }

    func testThatPlainHTTPSetsNoTLSOption() throws {
        let (_, options) = try plan(SessionManager(), "http://127.0.0.1:1/get")
        XCTAssertNil(options.longs[CURLOPT_SSL_VERIFYPEER.rawValue])
        XCTAssertTrue(options.trust.isEmpty)
    }

    /// libcurl copies every CA path it holds into each new connection's TLS settings, once per
    /// request: a plain-HTTP hop drops Debian's CA directory as an HTTPS hop does, and a session
    /// without a proxy drops the proxy's CA file and directory. The origin's CA file stays.
    func testThatNoHopCarriesCAPathsItNeverUses() throws {
        for url in ["http://127.0.0.1:1/get", "https://127.0.0.1:1/get"] {
            let (_, options) = try plan(SessionManager(), url)
            XCTAssertEqual(options.strings[CURLOPT_CAPATH.rawValue], .some(nil), url)
            XCTAssertEqual(options.strings[CURLOPT_PROXY_CAPATH.rawValue], .some(nil), url)
            XCTAssertEqual(options.strings[CURLOPT_PROXY_CAINFO.rawValue], .some(nil), url)
            XCTAssertFalse(options.strings.keys.contains(CURLOPT_CAINFO.rawValue), "\(url): the system bundle stays")
        }
        var configuration = SessionConfiguration()
        configuration.proxy = .http(host: "proxy.test", port: 3128)
        let (_, proxied) = try plan(SessionManager(configuration: configuration), "https://127.0.0.1:1/get")
        XCTAssertFalse(proxied.strings.keys.contains(CURLOPT_PROXY_CAPATH.rawValue), "a proxy's own CA settings are left alone")
        XCTAssertFalse(proxied.strings.keys.contains(CURLOPT_PROXY_CAINFO.rawValue))
    }

    func testMethodsAndBodies() throws {
        let session = SessionManager()
        let (_, get) = try plan(session, "http://h/")
        XCTAssertEqual(get.longs[CURLOPT_HTTPGET.rawValue], 1)
        let (_, head) = try plan(session, "http://h/", method: "HEAD")
        XCTAssertEqual(head.longs[CURLOPT_NOBODY.rawValue], 1)
        let (postPlan, post) = try plan(session, "http://h/", method: "POST", body: .data(Data(count: 5)))
        XCTAssertEqual(post.longs[CURLOPT_POST.rawValue], 1)
        XCTAssertEqual(post.offsets[CURLOPT_POSTFIELDSIZE_LARGE.rawValue], 5)
        XCTAssertFalse(post.strings.keys.contains(CURLOPT_CUSTOMREQUEST.rawValue))
        XCTAssertTrue(postPlan.usesBodyCallbacks)
        let (_, delete) = try plan(session, "http://h/", method: "DELETE")
        XCTAssertEqual(delete.strings[CURLOPT_CUSTOMREQUEST.rawValue], .some("DELETE"))
        XCTAssertNil(delete.longs[CURLOPT_POST.rawValue])
    }

    func testHeaderLinesMergeTheSessionDefaultsAndSuppressWhatLibcurlWouldInvent() throws {
        let (plan, _) = try plan(SessionManager(), "http://h/", method: "POST", body: .data(Data(count: 1)),
                                 headers: ["user-agent": "mine", "X-Empty": ""])
        let agents = plan.headerLines.filter { $0.lowercased().hasPrefix("user-agent:") }
        XCTAssertEqual(agents.map { $0.lowercased() }, ["user-agent: mine"], "the request's own value wins over the default")
        XCTAssertTrue(plan.headerLines.contains("X-Empty;"))
        XCTAssertTrue(plan.headerLines.contains("Expect:"))
        XCTAssertTrue(plan.headerLines.contains("Content-Type:"))
        XCTAssertNotNil(plan.acceptEncoding, "Accept-Encoding goes to CURLOPT_ACCEPT_ENCODING")
        XCTAssertFalse(plan.headerLines.contains { $0.lowercased().hasPrefix("accept-encoding") })
    }

    func testThatAPlainRequestUsesTheSessionsHeaderListAndOthersBuildTheirOwn() throws {
        var defaults = HTTPHeaders()
        defaults["User-Agent"] = "Curlfire-test"
        defaults["Accept-Encoding"] = "gzip"
        var options = AttemptOptions()
        options.defaultHeaders = defaults
        options.sessionHeaderLines = SessionHeaderLines(defaults: defaults)
        let url = try XCTUnwrap(URL(string: "http://example.test/x"))

        let plain = AttemptPlan(request: URLRequest(url: url), body: .none, options: options)
        XCTAssertNotNil(plain.sharedHeaderList)
        let expected = AttemptPlan.headerLines(request: URLRequest(url: url), defaults: defaults, hasBody: false)
        XCTAssertEqual(plain.headerLines, expected.lines)
        XCTAssertEqual(plain.acceptEncoding, "gzip")
        XCTAssertEqual(plain.headerLines, ["User-Agent: Curlfire-test", "Expect:"])

        var withHeader = URLRequest(url: url)
        withHeader.setValue("1", forHTTPHeaderField: "X-One")
        let own = AttemptPlan(request: withHeader, body: .none, options: options)
        XCTAssertNil(own.sharedHeaderList)
        XCTAssertTrue(own.headerLines.contains("X-One: 1"))

        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        let posted = AttemptPlan(request: post, body: .none, options: options)
        XCTAssertNil(posted.sharedHeaderList)
        XCTAssertTrue(posted.headerLines.contains("Content-Type:"), "libcurl's invented form type stays suppressed")
    }
}
