import Curlfire
import Foundation
import XCTest

/// Timeline invariants and libcurl metrics on real transfers.
final class TimelineAndMetricsTests: XCTestCase {
    func testThatTimelineStagesAreOrdered() async throws {
        let url1 = try Live.httpbin("/get")
        let response = await awaitResponse { Curlfire.request(url1).responseJSON(completionHandler: $0) }
        let timeline = response.timeline
        XCTAssertLessThanOrEqual(timeline.requestStartTime, timeline.initialResponseTime)
        XCTAssertLessThanOrEqual(timeline.initialResponseTime, timeline.requestCompletedTime)
        XCTAssertLessThanOrEqual(timeline.requestCompletedTime, timeline.serializationCompletedTime)
        XCTAssertGreaterThan(timeline.requestStartTime, 0)
    }

    func testThatLatencyCoversAServerDelay() async throws {
        let response = await Curlfire.request(try Live.httpbin("/delay/1")).serializingData().response
        XCTAssertGreaterThanOrEqual(response.timeline.latency, 1.0)
        XCTAssertGreaterThanOrEqual(response.timeline.totalDuration, response.timeline.latency)
    }

    func testThatMetricsDescribeTheConnectionAndItsReuse() async throws {
        let session = SessionManager()
        let url = try Live.httpbin("/get")
        let first = await session.request(url).serializingData().response
        let second = await session.request(url).serializingData().response
        let metrics1 = try XCTUnwrap(first.metrics)
        let metrics2 = try XCTUnwrap(second.metrics)
        XCTAssertFalse(metrics1.isReusedConnection)
        XCTAssertTrue(metrics2.isReusedConnection, "the second request reuses the keep-alive connection")
        XCTAssertEqual(metrics1.httpVersion, "HTTP/1.1")
        XCTAssertEqual(metrics1.remoteAddress, "127.0.0.1")
        XCTAssertEqual(metrics1.remotePort, Int(URL(string: url)!.port!))
        XCTAssertEqual(metrics1.localPort, metrics2.localPort, "same connection, same local port")
        XCTAssertGreaterThan(metrics1.bytesReceived, Int64(first.data?.count ?? 0))
        XCTAssertGreaterThan(metrics1.bytesSent, 0)
        XCTAssertLessThanOrEqual(metrics1.connectDuration, metrics1.firstByteDuration)
        XCTAssertLessThanOrEqual(metrics1.firstByteDuration, metrics1.totalDuration)
        XCTAssertNil(metrics1.tlsVersion)
    }

    func testThatDownloadProgressIsNonDecreasingAndEndsComplete() async throws {
        let fractions = Recorder<Double>()
        let request = Curlfire.request(try Live.httpbin("/stream-bytes/65536?chunk_size=4096"))
            .downloadProgress { fractions.append($0.completedUnitCount == 0 ? 0 : Double($0.completedUnitCount)) }
        let response = await awaitResponse { request.responseData(completionHandler: $0) }
        XCTAssertEqual(response.value?.count, 65536)
        let values = fractions.all
        XCTAssertFalse(values.isEmpty)
        XCTAssertEqual(values, values.sorted(), "non-decreasing")
        XCTAssertEqual(values.last, 65536)
    }
}
