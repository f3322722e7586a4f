import Foundation
import XCTest
@testable import Curlfire

/// Offline Certificate Transparency evaluation against fixtures made by scripts/make-test-ct.py
/// (our own logs and SCTs, regenerated once per test process; checked by that script against
/// OpenSSL's own CT validation with `--check`). No network.
final class CertificateTransparencyTests: XCTestCase {
    /// The fixtures directory, made once per process.
    static let fixtures: Result<URL, TrustTestPKIError> = {
        do {
            let pki = try TrustTestPKI.directory()
            let script = TrustTestPKI.repositoryRoot.appendingPathComponent("scripts/make-test-ct.py").path
            guard TrustTestPKI.run("/usr/bin/env", ["python3", script, pki.path]) != nil else {
                return .failure(TrustTestPKIError(output: "scripts/make-test-ct.py failed"))
            }
            return .success(pki.appendingPathComponent("ct"))
        } catch { return .failure(TrustTestPKIError(output: "\(error)")) }
    }()

    private func directory() throws -> URL { try Self.fixtures.get() }

    private func logList() throws -> CTLogList {
        try CTLogList(contentsOf: directory().appendingPathComponent("log-list.json"))
    }

    private func trust(_ name: String) throws -> ServerTrust {
        let chain = Certificate.certificates(fromPEM: try Data(contentsOf: directory().appendingPathComponent("\(name)-chain.pem")))
        XCTAssertEqual(chain.count, 2, name)
        return ServerTrust(certificates: chain)
    }

    private func evaluate(_ name: String, minimum: Int = 2, tls: Data? = nil) throws -> CurlfireError.ServerTrustFailureReason? {
        try CertificateTransparencyPolicy(logList: logList(), minimumSCTs: minimum).evaluate(trust(name), tlsExtensionSCTs: tls)
    }

    private func problems(_ reason: CurlfireError.ServerTrustFailureReason?) -> (found: Int, text: String)? {
        guard case let .insufficientSignedCertificateTimestamps(_, found, problems)? = reason else { return nil }
        return (found, problems.joined(separator: "; "))
    }

    func testThatTheLogListIsRead() throws {
        let list = try logList()
        XCTAssertEqual(list.logs.count, 3)
        XCTAssertEqual(Set(list.logs.map(\.operatorName)), ["Operator A", "Operator B"])
    }

    func testThatAMalformedLogListIsATypedError() {
        XCTAssertThrowsError(try CTLogList(jsonData: Data("{\"operators\": 1}".utf8))) { error in
            guard case .certificateTransparencyLogListInvalid? = error as? CurlfireError else { return XCTFail("\(error)") }
        }
        let wrongID = #"{"operators":[{"name":"X","logs":[{"log_id":"AAAA","key":"AAAA"}]}]}"#
        XCTAssertThrowsError(try CTLogList(jsonData: Data(wrongID.utf8)))
    }

    func testThatEmbeddedSCTsFromTwoOperatorsPass() throws {
        XCTAssertNil(try evaluate("embedded-2ops"))
    }

    func testThatTwoSCTsFromOneOperatorCountOnce() throws {
        let result = try XCTUnwrap(problems(try evaluate("embedded-sameop")))
        XCTAssertEqual(result.found, 1)
        XCTAssertTrue(result.text.contains("Operator A"), result.text)
        XCTAssertNil(try evaluate("embedded-sameop", minimum: 1))
    }

    func testThatABadSignatureDoesNotCount() throws {
        let result = try XCTUnwrap(problems(try evaluate("embedded-badsig")))
        XCTAssertEqual(result.found, 1)
        XCTAssertTrue(result.text.contains("Curlfire test log b (Operator B): invalid signature"), result.text)
    }

    func testThatATimestampInTheFutureDoesNotCount() throws {
        let result = try XCTUnwrap(problems(try evaluate("embedded-future")))
        XCTAssertEqual(result.found, 1)
        XCTAssertTrue(result.text.contains("timestamp in the future"), result.text)
    }

    func testThatAnSCTFromAnUnlistedLogDoesNotCount() throws {
        let result = try XCTUnwrap(problems(try evaluate("embedded-unknown")))
        XCTAssertEqual(result.found, 1)
        XCTAssertTrue(result.text.contains("a log not in the list"), result.text)
    }

    func testThatACertificateWithoutSCTsFailsNamingWhatIsMissing() throws {
        let result = try XCTUnwrap(problems(try evaluate("plain")))
        XCTAssertEqual(result.found, 0)
        XCTAssertTrue(result.text.contains("no SCT"), result.text)
        XCTAssertNotNil(try evaluate("embedded-one"), "one operator where two are required")
        XCTAssertNil(try evaluate("embedded-one", minimum: 1))
    }

    func testThatSCTsFromTheTLSExtensionCount() throws {
        // The serverinfo block: 4-byte context, extension type 18, 2-byte length, then the SCT list.
        let pem = try String(contentsOf: directory().appendingPathComponent("plain-serverinfo.pem"), encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let block = try XCTUnwrap(Data(base64Encoded: base64))
        let list = block.dropFirst(8)
        XCTAssertNil(try evaluate("plain", tls: Data(list)))
        // The same SCTs do not verify for another certificate: they signed plain.pem itself.
        let mismatched = try XCTUnwrap(problems(try evaluate("embedded-one", tls: Data(list))))
        XCTAssertEqual(mismatched.found, 1)
        XCTAssertTrue(mismatched.text.contains("invalid signature"), mismatched.text)
    }

    func testThatTheReasonReadsWell() throws {
        let reason = try XCTUnwrap(try evaluate("embedded-badsig"))
        let text = CurlfireError.serverTrustEvaluationFailed(host: "ct.test", reason: reason).description
        XCTAssertTrue(text.contains("valid SCTs from 1 distinct log operator(s) where 2 are required"), text)
    }
}
