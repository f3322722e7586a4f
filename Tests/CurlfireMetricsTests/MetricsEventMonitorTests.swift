#if Metrics
import Curlfire
import CurlfireMetrics
import Foundation
import MetricsTestKit
import XCTest

/// `MetricsEventMonitor` against real httpbin, recorded in swift-metrics' `TestMetrics`.
final class MetricsEventMonitorTests: XCTestCase {
    func testThatARequestRecordsItsDurationBytesAndActiveCountByMethodStatusAndHost() async throws {
        // Given
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        let session = SessionManager(eventMonitors: [monitor])
        let url = try Live.servers().httpbin.appendingPathComponent("bytes/2048")
        // When
        let response = await session.request(url, method: .get).serializingData().response
        monitor.queue.sync {}
        // Then
        XCTAssertEqual(response.value?.count, 2048)
        let host = try XCTUnwrap(url.host)
        let dimensions = [("http.request.method", "GET"), ("http.response.status_code", "200"), ("server.address", host)]
        let timer = try metrics.expectTimer("http.client.request.duration", dimensions)
        XCTAssertEqual(timer.values.count, 1)
        let seconds = Double(try XCTUnwrap(timer.lastValue)) / 1e9
        XCTAssertGreaterThan(seconds, 0)
        XCTAssertLessThan(seconds, 10)
        let received = try metrics.expectCounter("http.client.bytes_received", dimensions)
        XCTAssertGreaterThanOrEqual(received.totalValue, 2048)
        let sent = try metrics.expectCounter("http.client.bytes_sent", dimensions)
        XCTAssertGreaterThan(sent.totalValue, 0)
        let active = try metrics.expectMeter("http.client.active_requests",
                                             [("http.request.method", "GET"), ("server.address", host)])
        XCTAssertEqual(active.values, [1, 0])
    }

    func testThatActiveRequestsCountsRequestsInFlight() async throws {
        // Given: three slow requests at once
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        let session = SessionManager(eventMonitors: [monitor])
        let url = try Live.httpbin("/delay/2")
        let host = try XCTUnwrap(Live.servers().httpbin.host)
        let dimensions = [("http.request.method", "GET"), ("server.address", host)]
        // When: looked at while all three run (they take 2 s; polled for at most 1.5 s)
        let requests = (0..<3).map { _ in session.request(url).serializingData() }
        var whileRunning: Double?
        for _ in 0..<30 where whileRunning != 3 {
            try await Task.sleep(nanoseconds: 50_000_000)
            monitor.queue.sync {}
            whileRunning = try? metrics.expectMeter("http.client.active_requests", dimensions).lastValue
        }
        for request in requests { _ = await request.response }
        monitor.queue.sync {}
        // Then
        XCTAssertEqual(whileRunning, 3)
        XCTAssertEqual(try metrics.expectMeter("http.client.active_requests", dimensions).lastValue, 0)
    }

    func testThatStatusAndMethodAreDimensionsAndAFailedConnectionHasNoStatus() async throws {
        // Given
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        let session = SessionManager(eventMonitors: [monitor])
        let host = try XCTUnwrap(Live.servers().httpbin.host)
        // When: a POST answered 418, and a request to a port nothing listens on
        _ = await session.request(try Live.httpbin("/status/418"), method: .post).serializingData().response
        _ = await session.request("http://127.0.0.1:9/unreachable").serializingData().response
        monitor.queue.sync {}
        // Then
        XCTAssertEqual(try metrics.expectTimer("http.client.request.duration",
                                               [("http.request.method", "POST"), ("http.response.status_code", "418"),
                                                ("server.address", host)]).values.count, 1)
        XCTAssertEqual(try metrics.expectTimer("http.client.request.duration",
                                               [("http.request.method", "GET"), ("http.response.status_code", "none"),
                                                ("server.address", "127.0.0.1")]).values.count, 1)
        XCTAssertEqual(metrics.timers(label: "http.client.request.duration").count, 2)
    }

    func testThatARetriedRequestIsOneRequestWithTheBytesOfEveryAttempt() async throws {
        // Given: a 503 retried twice
        let metrics = TestMetrics()
        let monitor = MetricsEventMonitor(factory: metrics)
        let session = SessionManager(eventMonitors: [monitor])
        session.retrier = RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01)
        let host = try XCTUnwrap(Live.servers().httpbin.host)
        // When
        _ = await session.request(try Live.httpbin("/status/503")).serializingData().response
        monitor.queue.sync {}
        // Then
        let dimensions = [("http.request.method", "GET"), ("http.response.status_code", "503"), ("server.address", host)]
        XCTAssertEqual(try metrics.expectTimer("http.client.request.duration", dimensions).values.count, 1)
        XCTAssertEqual(try metrics.expectCounter("http.client.bytes_sent", dimensions).values.count, 3)
    }
}
#endif
