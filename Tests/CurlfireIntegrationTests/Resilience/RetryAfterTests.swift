import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `RetryPolicy`'s `Retry-After`, 429 and jitter against real servers: httpbin's `/status/429`
/// and MockServer's scripted sequences. The delays are read from the event monitor.
final class RetryAfterTests: XCTestCase {
    /// A session with `policy` and a monitor recording the delays announced.
    static func session(_ policy: RetryPolicy) -> (SessionManager, Recorder<TimeInterval>, ClosureEventMonitor) {
        let delays = Recorder<TimeInterval>()
        let monitor = ClosureEventMonitor()
        monitor.requestWillRetryAfter = { _, delay in delays.append(delay) }
        return (SessionManager(eventMonitors: [monitor], interceptor: policy), delays, monitor)
    }

    func testThat429IsRetriedByDefaultOnHTTPBin() async throws {
        let (session, delays, monitor) = Self.session(RetryPolicy(exponentialBackoffScale: 0.02))
        let request = session.request(try Live.httpbin("/status/429"))
        let response = await request.validate().serializingData().response
        monitor.queue.sync {}
        XCTAssertEqual(response.error?.responseCode, 429)
        XCTAssertEqual(request.retryCount, 2, "429 is retried up to the limit")
        XCTAssertEqual(response.allMetrics.count, 3)
        XCTAssertEqual(delays.all.count, 2)
        XCTAssertTrue(delays.all.allSatisfy { (0...0.04).contains($0) }, "full jitter within the backoff: \(delays.all)")
    }

    func testThatRetryAfterInSecondsAndAsADateIsWaited() async throws {
        let server = try MockServer()
        let inTwoSeconds = Date().addingTimeInterval(3.5) // ~2.5 s after the first 1 s delay
        server.enqueue(MockResponse(statusCode: 429, headers: ["Retry-After": "1"]))
        server.enqueue(MockResponse(statusCode: 503, headers: ["Retry-After": Self.httpDate(inTwoSeconds)]))
        server.enqueue(.text("done"))
        let (session, delays, monitor) = Self.session(RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01,
                                                                  jitter: .none))
        let started = Date()
        let response = await session.request(server.url("/limited")).validate().serializingString().response
        let elapsed = Date().timeIntervalSince(started)
        monitor.queue.sync {}
        XCTAssertEqual(response.value, "done", response.debugDescription)
        XCTAssertEqual(server.requestCount, 3)
        let waited = delays.all
        XCTAssertEqual(waited.count, 2)
        XCTAssertEqual(waited.first, 1, "delta-seconds exactly, not the 0.01 s backoff")
        XCTAssertTrue((0.8...3).contains(waited.last ?? 0), "the HTTP date, whole seconds: \(waited)")
        XCTAssertGreaterThanOrEqual(elapsed, 1 + (waited.last ?? 0) - 0.05, "the delays were really waited")
    }

    func testThatARetryAfterPastTheCapIsNotRetried() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(statusCode: 503, headers: ["Retry-After": "61"]))
        server.enqueue(MockResponse(statusCode: 429, headers: ["Retry-After": "3"]))
        server.enqueue(.text("never"))
        let (session, delays, _) = Self.session(RetryPolicy(exponentialBackoffScale: 0.01))
        let started = Date()
        let first = await session.request(server.url("/a")).validate().serializingData().response
        XCTAssertEqual(first.error?.responseCode, 503, "61 s is past the 60 s default: delivered as it is")
        let capped = SessionManager(interceptor: RetryPolicy(exponentialBackoffScale: 0.01, maximumRetryAfter: 2))
        let second = await capped.request(server.url("/b")).validate().serializingData().response
        XCTAssertEqual(second.error?.responseCode, 429, "3 s is past a 2 s cap")
        XCTAssertEqual(server.requestCount, 2, "neither was sent again")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "nothing waited")
        XCTAssertTrue(delays.all.isEmpty)
    }

    func testThatFullJitterSpreadsTheDelaysOfRequestsThatFailedTogether() async throws {
        let server = try MockServer(dispatcher: { _ in MockResponse(statusCode: 503) })
        let policy = RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.5)
        let (session, delays, monitor) = Self.session(policy)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { _ = await session.request(server.url("/spread/\(index)")).serializingData().response }
            }
        }
        monitor.queue.sync {}
        let waited = delays.all
        XCTAssertEqual(server.requestCount, 40)
        XCTAssertEqual(waited.count, 20, "each failed and was retried once")
        XCTAssertTrue(waited.allSatisfy { (0...0.5).contains($0) }, "\(waited)")
        XCTAssertGreaterThan(Set(waited).count, 15, "not in lockstep: \(waited)")
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
