@testable import Curlfire
import Foundation
import XCTest

/// The hops' metrics of a request without an array for the single hop: what ``MetricsHistory``
/// gives back is what was appended, in order, whatever its storage.
final class MetricsHistoryTests: XCTestCase {
    private func metrics(_ redirects: Int) -> TransferMetrics {
        var metrics = TransferMetrics(nameLookupDuration: 0.001, connectDuration: 0.002, totalDuration: 0.01)
        metrics.redirectCount = redirects
        return metrics
    }

    func testThatAppendedMetricsComeBackOldestFirst() {
        var history: MetricsHistory = []
        XCTAssertEqual(history.count, 0)
        XCTAssertEqual(history.all, [])
        history.append(metrics(0))
        XCTAssertEqual(history.count, 1)
        XCTAssertEqual(history.all.map(\.redirectCount), [0])
        history.append(metrics(1))
        history.append(metrics(2))
        XCTAssertEqual(history.count, 3)
        XCTAssertEqual(history.all.map(\.redirectCount), [0, 1, 2])
    }

    func testThatACopyDoesNotChangeWithTheOriginal() {
        var history = MetricsHistory([metrics(0), metrics(1)])
        let copy = history
        history.append(metrics(2))
        XCTAssertEqual(copy.all.map(\.redirectCount), [0, 1])
        XCTAssertEqual(history.all.map(\.redirectCount), [0, 1, 2])
    }

    func testThatAnArrayRoundTrips() {
        for count in 0...3 {
            let list = (0..<count).map(metrics)
            XCTAssertEqual(MetricsHistory(list).all, list)
            XCTAssertEqual(MetricsHistory(list).count, count)
        }
    }

    func testThatResponsesGiveTheWholeHistory() {
        let list = [metrics(0), metrics(1)]
        let response = DefaultDataResponse(request: nil, response: nil, data: nil, error: nil, allMetrics: list)
        XCTAssertEqual(response.allMetrics, list)
        let single = DataResponse<Data>(request: nil, response: nil, data: nil, result: .success(Data()),
                                        allMetrics: [metrics(3)])
        XCTAssertEqual(single.allMetrics.map(\.redirectCount), [3])
        XCTAssertEqual(single.map { $0.count }.allMetrics.map(\.redirectCount), [3])
    }
}
