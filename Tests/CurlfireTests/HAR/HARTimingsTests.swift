import Curlfire
import Foundation
import XCTest

/// HAR phases from libcurl's cumulative times (no network).
final class HARTimingsTests: XCTestCase {
    func testThatAFreshTLSExchangeSplitsIntoEveryPhase() {
        let metrics = TransferMetrics(nameLookupDuration: 0.001, connectDuration: 0.003, tlsHandshakeDuration: 0.010,
                                      requestStartDuration: 0.0105, firstByteDuration: 0.050, totalDuration: 0.070,
                                      tlsVersion: "TLSv1.3")
        let timings = HAR.Timings(metrics: metrics)
        XCTAssertEqual(timings.blocked, -1)
        XCTAssertEqual(timings.dns, 1, accuracy: 1e-9)
        XCTAssertEqual(timings.ssl, 7, accuracy: 1e-9)
        XCTAssertEqual(timings.connect, 9, accuracy: 1e-9, "TCP (2 ms) plus TLS (7 ms): connect includes ssl")
        XCTAssertEqual(timings.send, 0.5, accuracy: 1e-9)
        XCTAssertEqual(timings.wait, 39.5, accuracy: 1e-9)
        XCTAssertEqual(timings.receive, 20, accuracy: 1e-9)
        XCTAssertEqual(timings.total, 70, accuracy: 1e-9, "the phases add up to the transfer's total")
    }

    func testThatAReusedConnectionHasNoConnectionPhases() {
        let metrics = TransferMetrics(nameLookupDuration: 0.00001, connectDuration: 0.00002, tlsHandshakeDuration: 0.00002,
                                      requestStartDuration: 0.0001, firstByteDuration: 0.002, totalDuration: 0.0025,
                                      isReusedConnection: true, tlsVersion: "TLSv1.3")
        let timings = HAR.Timings(metrics: metrics)
        XCTAssertEqual([timings.dns, timings.connect, timings.ssl], [-1, -1, -1])
        XCTAssertEqual(timings.send, 0.1, accuracy: 1e-9)
        XCTAssertEqual(timings.wait, 1.9, accuracy: 1e-9)
        XCTAssertEqual(timings.receive, 0.5, accuracy: 1e-9)
        XCTAssertEqual(timings.total, 2.5, accuracy: 1e-9)
    }

    func testThatPlainHTTPHasNoSSLPhase() {
        let metrics = TransferMetrics(nameLookupDuration: 0.002, connectDuration: 0.004, requestStartDuration: 0.004,
                                      firstByteDuration: 0.010, totalDuration: 0.010)
        let timings = HAR.Timings(metrics: metrics)
        XCTAssertEqual(timings.ssl, -1)
        XCTAssertEqual(timings.connect, 2, accuracy: 1e-9)
        XCTAssertEqual(timings.receive, 0)
    }

    func testThatAFailedConnectNeverGivesNegativeOrNaNPhases() {
        // A refused connection: later times stay 0 while the total runs on.
        let metrics = TransferMetrics(nameLookupDuration: 0.001, connectDuration: 0, totalDuration: 0.004)
        let timings = HAR.Timings(metrics: metrics)
        for phase in [timings.dns, timings.connect, timings.send, timings.wait, timings.receive] {
            XCTAssertGreaterThanOrEqual(phase, 0)
        }
        XCTAssertEqual(timings.total, 4, accuracy: 1e-9)
        let nonsense = HAR.Timings(metrics: TransferMetrics(nameLookupDuration: .nan, totalDuration: .infinity))
        XCTAssertFalse([nonsense.dns, nonsense.connect, nonsense.send, nonsense.wait, nonsense.receive].contains { !$0.isFinite })
    }
}
