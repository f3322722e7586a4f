@testable import Curlfire
internal import CCurl
import Foundation
import FoundationNetworking
import XCTest

/// The key log in the per-hop plan, without a network: off by default, installed on the SSL_CTX of
/// every HTTPS hop when set — beside libcurl's own verification or the host's trust policy, never
/// instead of either — and an unusable file refused before sending.
final class TLSKeyLogPlanTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-keylog-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func recorded(_ session: SessionManager, _ url: String) throws -> AttemptPlanTests.Recorder {
        let request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        let options = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        var recorder = AttemptPlanTests.Recorder()
        AttemptPlan(request: request, body: .none, options: options).write(to: &recorder)
        return recorder
    }

    func testThatNothingIsInstalledByDefault() throws {
        let written = try recorded(SessionManager(), "https://h/")
        XCTAssertTrue(written.trust.isEmpty)
        XCTAssertEqual(written.longs[CURLOPT_SSL_VERIFYHOST.rawValue], 2)
    }

    func testThatTheKeyLogRidesBesideLibcurlsVerificationAndBesideATrustPolicy() throws {
        var configuration = SessionConfiguration()
        configuration.tlsKeyLogFile = directory.appendingPathComponent("keys.log")
        let policies = ServerTrustPolicyManager(policies: ["pinned.test": .disableEvaluation])
        let session = SessionManager(configuration: configuration, serverTrustPolicyManager: policies)

        let plain = try recorded(session, "https://h/")
        let onlyLog = try XCTUnwrap(plain.trust.first as? KeyLoggingTLSContext)
        XCTAssertNil(onlyLog.trust)
        XCTAssertEqual(plain.longs[CURLOPT_SSL_VERIFYHOST.rawValue], 2, "libcurl still checks the host name")

        let pinned = try recorded(session, "https://pinned.test/")
        let both = try XCTUnwrap(pinned.trust.first as? KeyLoggingTLSContext)
        XCTAssertEqual((both.trust as? TLSTrustBridge)?.host, "pinned.test", "the host's own policy still evaluates")
        XCTAssertEqual(pinned.longs[CURLOPT_SSL_VERIFYHOST.rawValue], 0)

        XCTAssertTrue(try recorded(session, "http://h/").trust.isEmpty, "plain HTTP has no TLS")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("keys.log").path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }

    func testThatAnUnusableFileFailsHTTPSRequestsBeforeSending() throws {
        var configuration = SessionConfiguration()
        configuration.tlsKeyLogFile = directory.appendingPathComponent("missing/keys.log")
        let session = SessionManager(configuration: configuration)
        guard case let .tlsKeyLogFileUnusable(path, error)? = session.tlsSettingsError(for: URLRequest(url: try XCTUnwrap(URL(string: "https://h/")))) else {
            return XCTFail("expected tlsKeyLogFileUnusable")
        }
        XCTAssertTrue(path.hasSuffix("missing/keys.log"))
        XCTAssertEqual((error as? POSIXError)?.code, .ENOENT)
        XCTAssertNil(session.tlsSettingsError(for: URLRequest(url: try XCTUnwrap(URL(string: "http://h/")))))
        configuration.tlsKeyLogFile = URL(string: "https://example.com/keys.log")
        guard case .tlsKeyLogFileUnusable? = SessionManager(configuration: configuration)
            .tlsSettingsError(for: URLRequest(url: try XCTUnwrap(URL(string: "https://h/")))) else {
            return XCTFail("a URL that is not a file is refused")
        }
    }
}
