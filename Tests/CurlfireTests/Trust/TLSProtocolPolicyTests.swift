@testable import Curlfire
internal import CCurl
import Foundation
import FoundationNetworking
import XCTest

/// The TLS protocol policy without a network (issue 27, point 1): which policy each hop gets, the
/// libcurl options its plan lists, the policies refused before sending, and what a failed
/// handshake's OpenSSL message is attributed to.
final class TLSProtocolPolicyTests: XCTestCase {
    private func recorded(_ configuration: SessionConfiguration, _ url: String) throws -> AttemptPlanTests.Recorder {
        let session = SessionManager(configuration: configuration)
        let request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        let options = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        var recorder = AttemptPlanTests.Recorder()
        AttemptPlan(request: request, body: .none, options: options).write(to: &recorder)
        return recorder
    }

    private let tls12Only = CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_TLSv1_2
    private let tls13Only = CURL_SSLVERSION_TLSv1_3 | CURL_SSLVERSION_MAX_TLSv1_3

    // MARK: - The plan

    func testThatEveryHTTPSHopOffersTLS12AndNewerByDefaultAndPlainHTTPSetsNothing() throws {
        let written = try recorded(SessionConfiguration(), "https://h/")
        XCTAssertEqual(written.longs[CURLOPT_SSLVERSION.rawValue], CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_DEFAULT)
        XCTAssertFalse(written.strings.keys.contains(CURLOPT_SSL_CIPHER_LIST.rawValue))
        XCTAssertFalse(written.strings.keys.contains(CURLOPT_TLS13_CIPHERS.rawValue))
        XCTAssertFalse(written.strings.keys.contains(CURLOPT_SSL_EC_CURVES.rawValue))
        XCTAssertNil(try recorded(SessionConfiguration(), "http://h/").longs[CURLOPT_SSLVERSION.rawValue])
    }

    func testThatTheSessionPolicyListsEachOfItsSettings() throws {
        var configuration = SessionConfiguration()
        configuration.tlsProtocolPolicy = TLSProtocolPolicy(minimumVersion: .v1_3, maximumVersion: .v1_3,
                                                            cipherList: "ECDHE-ECDSA-AES128-GCM-SHA256",
                                                            tls13CipherSuites: "TLS_AES_256_GCM_SHA384",
                                                            groups: ["X25519", "P-256"])
        let written = try recorded(configuration, "https://h/")
        XCTAssertEqual(written.longs[CURLOPT_SSLVERSION.rawValue], tls13Only)
        XCTAssertEqual(written.strings[CURLOPT_SSL_CIPHER_LIST.rawValue], "ECDHE-ECDSA-AES128-GCM-SHA256")
        XCTAssertEqual(written.strings[CURLOPT_TLS13_CIPHERS.rawValue], "TLS_AES_256_GCM_SHA384")
        XCTAssertEqual(written.strings[CURLOPT_SSL_EC_CURVES.rawValue], "X25519:P-256")
    }

    func testThatEachHopGetsItsOwnHostsPolicyExactBeforeWildcard() throws {
        var configuration = SessionConfiguration()
        configuration.tlsProtocolPolicy = TLSProtocolPolicy(minimumVersion: .v1_3)
        configuration.tlsProtocolPolicies = ["*.Example.com": TLSProtocolPolicy(maximumVersion: .v1_2),
                                             "api.example.com": TLSProtocolPolicy(groups: ["P-384"]),
                                             "127.0.0.1": TLSProtocolPolicy(cipherList: "AES128-SHA")]
        let session13 = CURL_SSLVERSION_TLSv1_3 | CURL_SSLVERSION_MAX_DEFAULT
        let cases: [(String, Int, String?)] = [
            ("https://www.example.com/", tls12Only, nil),            // the wildcard, whatever its case
            ("https://WWW.EXAMPLE.COM./", tls12Only, nil),           // trailing dot, upper case
            ("https://api.example.com/", CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_DEFAULT, "P-384"), // exact wins
            ("https://example.com/", session13, nil),                // a wildcard needs one more label
            ("https://a.b.example.com/", session13, nil),            // exactly one
            ("https://localhost/", session13, nil),                  // as the URL spells it
        ]
        for (url, version, groups) in cases {
            let written = try recorded(configuration, url)
            XCTAssertEqual(written.longs[CURLOPT_SSLVERSION.rawValue], version, url)
            XCTAssertEqual(written.strings[CURLOPT_SSL_EC_CURVES.rawValue] ?? nil, groups, url)
        }
        XCTAssertEqual(try recorded(configuration, "https://127.0.0.1:8443/").strings[CURLOPT_SSL_CIPHER_LIST.rawValue],
                       "AES128-SHA")
    }

    func testThatARedirectHopIsPlannedForItsOwnHost() throws {
        var configuration = SessionConfiguration()
        configuration.tlsProtocolPolicies = ["first.test": TLSProtocolPolicy(minimumVersion: .v1_3)]
        let session = SessionManager(configuration: configuration)
        var versions: [Int?] = []
        for url in ["https://first.test/start", "https://second.test/landing"] {
            let request = URLRequest(url: try XCTUnwrap(URL(string: url)))
            let options = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
            var recorder = AttemptPlanTests.Recorder()
            AttemptPlan(request: request, body: .none, options: options).write(to: &recorder)
            versions.append(recorder.longs[CURLOPT_SSLVERSION.rawValue])
        }
        XCTAssertEqual(versions, [CURL_SSLVERSION_TLSv1_3 | CURL_SSLVERSION_MAX_DEFAULT,
                                  CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_DEFAULT])
    }

    // MARK: - Policies refused before sending

    func testThatAPolicyThatAllowsNothingIsRefusedBeforeSendingWithWhatItRefused() throws {
        var configuration = SessionConfiguration()
        configuration.tlsProtocolPolicies = [
            "range.test": TLSProtocolPolicy(minimumVersion: .v1_3, maximumVersion: .v1_2),
            "cipher.test": TLSProtocolPolicy(cipherList: "AES128-SHA\nX"),
            "suites.test": TLSProtocolPolicy(tls13CipherSuites: ""),
            "groups.test": TLSProtocolPolicy(groups: ["X25519:P-256"]),
            "nogroups.test": TLSProtocolPolicy(groups: []),
        ]
        let session = SessionManager(configuration: configuration)
        func refusal(_ url: String) throws -> TLSProtocolRefusal? {
            let error = session.tlsSettingsError(for: URLRequest(url: try XCTUnwrap(URL(string: url))))
            guard case let .sessionTaskFailed(.tlsProtocolRefused(refusal), message)? = error else { return nil }
            XCTAssertFalse(message.isEmpty)
            return refusal
        }
        XCTAssertEqual(try refusal("https://range.test/"), .version(minimum: .v1_3, maximum: .v1_2))
        XCTAssertEqual(try refusal("https://cipher.test/"), .cipherSuites(cipherList: "AES128-SHA\nX", tls13CipherSuites: nil))
        XCTAssertEqual(try refusal("https://suites.test/"), .cipherSuites(cipherList: nil, tls13CipherSuites: ""))
        XCTAssertEqual(try refusal("https://groups.test/"), .groups(["X25519:P-256"]))
        XCTAssertEqual(try refusal("https://nogroups.test/"), .groups([]))
        XCTAssertNil(try refusal("https://other.test/"), "the session's default policy is usable")
        XCTAssertNil(try refusal("http://range.test/"), "plain HTTP has no handshake")
        XCTAssertTrue(SessionManager().tlsProtocolPolicies.allUsable)
    }

    // MARK: - What a failed handshake refused

    func testThatOpenSSLMessagesAreAttributedToWhatThePolicyRestricts() {
        let alertVersion = "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version"
        let alertHandshake = "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure"
        let ciphers = TLSProtocolPolicy(cipherList: "ECDHE-ECDSA-AES256-GCM-SHA384")
        let suites13 = TLSProtocolPolicy(minimumVersion: .v1_3, cipherList: "IGNORED", tls13CipherSuites: "TLS_AES_256_GCM_SHA384")
        let groups = TLSProtocolPolicy(groups: ["P-256"])
        let both = TLSProtocolPolicy(cipherList: "AES128-SHA", groups: ["P-256"])
        let table: [(String, TLSProtocolPolicy, TLSProtocolRefusal?)] = [
            (alertVersion, TLSProtocolPolicy(minimumVersion: .v1_3), .version(minimum: .v1_3, maximum: .v1_3)),
            (alertVersion, .default, .version(minimum: .v1_2, maximum: .v1_3)),
            ("error:0A000102:SSL routines::unsupported protocol", TLSProtocolPolicy(maximumVersion: .v1_2),
             .version(minimum: .v1_2, maximum: .v1_2)),
            (alertHandshake, ciphers, .cipherSuites(cipherList: "ECDHE-ECDSA-AES256-GCM-SHA384", tls13CipherSuites: nil)),
            (alertHandshake, suites13, .cipherSuites(cipherList: "IGNORED", tls13CipherSuites: "TLS_AES_256_GCM_SHA384")),
            (alertHandshake, groups, .groups(["P-256"])),
            ("error:0A000178:SSL routines::wrong curve", groups, .groups(["P-256"])),
            (alertHandshake, both, .cipherSuitesOrGroups(cipherList: "AES128-SHA", tls13CipherSuites: nil, groups: ["P-256"])),
            ("error:0A0000B5:SSL routines::no ciphers available", both, .cipherSuites(cipherList: "AES128-SHA", tls13CipherSuites: nil)),
            // Not the policy's doing: nothing restricted, or another failure.
            (alertHandshake, .default, nil),
            (alertHandshake, TLSProtocolPolicy(minimumVersion: .v1_3, cipherList: "AES128-SHA"), nil), // 1.2 list unused
            ("error:0A000086:SSL routines::certificate verify failed", ciphers, nil),
            ("Connection reset by peer", groups, nil),
        ]
        for (message, policy, expected) in table {
            XCTAssertEqual(TLSProtocolRefusal(handshakeMessage: message, policy: policy), expected, "\(message) under \(policy)")
        }
    }

    func testThatTheErrorNamesWhatWasRefused() {
        let error = CurlfireError.sessionTaskFailed(code: .tlsProtocolRefused(.version(minimum: .v1_3, maximum: .v1_3)),
                                                    message: "tlsv1 alert protocol version")
        XCTAssertTrue(error.description.contains("no TLS 1.3"), error.description)
        XCTAssertEqual(TLSProtocolRefusal.version(minimum: .v1_2, maximum: .v1_3).description,
                       "no TLS version between TLS 1.2 and TLS 1.3")
        XCTAssertEqual(TLSProtocolRefusal.groups(["X25519", "P-256"]).description, "none of the groups X25519:P-256")
        XCTAssertEqual(TLSProtocolRefusal.cipherSuites(cipherList: "A", tls13CipherSuites: "B").description,
                       "none of the cipher suites A (TLS 1.2), B (TLS 1.3)")
        XCTAssertEqual(AttemptEnding.tlsProtocolRefused(.groups(["P-256"]), message: "m").error?.transportErrorCode,
                       .tlsProtocolRefused(.groups(["P-256"])))
    }
}
