import Curlfire
import Foundation
import XCTest

/// One host's trust bridge serves concurrent handshakes; each failed request must report its own reason.
final class TrustReasonIsolationTests: XCTestCase {
    func testThatConcurrentRejectedHandshakesToOneHostReportTheirOwnReasons() async throws {
        // Given: the expired and the wrong-host servers are both "localhost" (different ports), so one
        // session uses one bridge for both.
        let servers = try Live.servers()
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        let session = SessionManager(configuration: configuration)
        let expired = try servers.https("expired").absoluteString + "/get"
        let wrongHost = try servers.https("wronghost").absoluteString + "/get"
        let plan = (0..<24).map { $0 % 2 == 0 ? (expired, CurlfireError.ServerTrustFailureReason.certificateExpired)
                                              : (wrongHost, .hostMismatch) }
        // When: all at once.
        let reasons = await withTaskGroup(of: (Int, CurlfireError.ServerTrustFailureReason?).self) { group in
            for (index, (url, _)) in plan.enumerated() {
                group.addTask {
                    let response = await session.request(url).serializingData().response
                    if case let .serverTrustEvaluationFailed(_, reason)? = response.error { return (index, reason) }
                    return (index, nil)
                }
            }
            var reasons = [CurlfireError.ServerTrustFailureReason?](repeating: nil, count: plan.count)
            for await (index, reason) in group { reasons[index] = reason }
            return reasons
        }
        // Then
        XCTAssertEqual(reasons, plan.map(\.1))
    }
}
