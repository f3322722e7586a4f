import Curlfire
import CurlfireTesting
import Foundation
import Logging
import XCTest

/// `CircuitBreaker` against a MockServer whose health the test switches: what is sent is counted
/// at the server, transitions are read from an event monitor.
final class CircuitBreakerTests: XCTestCase {
    func testThatTheBreakerOpensFailsFastUnsentThenProbesAndCloses() async throws {
        let healthy = LockedFlag()
        let server = try MockServer(dispatcher: { _ in
            healthy.value ? .text("ok") : MockResponse(statusCode: 503)
        })
        let breaker = CircuitBreaker(failureRateThreshold: 0.5, windowSize: 4, openDuration: 2, halfOpenProbes: 1)
        let transitions = Recorder<CircuitBreaker.Transition>()
        let monitor = ClosureEventMonitor()
        monitor.circuitBreakerDidTransition = { transitions.append($0) }
        let session = SessionManager(eventMonitors: [monitor], interceptor: breaker)
        let host = "127.0.0.1:\(server.port)"

        for _ in 0..<4 {
            let response = await session.request(server.url("/flaky")).validate().serializingData().response
            XCTAssertEqual(response.error?.responseCode, 503)
        }
        XCTAssertEqual(server.requestCount, 4)
        XCTAssertEqual(breaker.state(forHost: host), .open)

        let started = Date()
        for _ in 0..<5 {
            let response = await session.request(server.url("/flaky")).validate().serializingData().response
            guard case let .circuitOpen(openHost)? = response.error else {
                return XCTFail("expected circuitOpen, got \(String(describing: response.error))")
            }
            XCTAssertEqual(openHost, host)
            XCTAssertNil(response.response, "nothing was sent, nothing came back")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.9, "failed at once")
        XCTAssertEqual(server.requestCount, 4, "while open nothing reaches the server")

        try await Task.sleep(nanoseconds: 2_300_000_000)
        healthy.value = true
        let probe = await session.request(server.url("/flaky")).validate().serializingString().response
        XCTAssertEqual(probe.value, "ok")
        XCTAssertEqual(server.requestCount, 5, "one probe")
        XCTAssertEqual(breaker.state(forHost: host), .closed)
        monitor.queue.sync {}
        XCTAssertEqual(transitions.all.map(\.description),
                       ["\(host): closed → open", "\(host): open → halfOpen", "\(host): halfOpen → closed"])
    }

    func testThatAFailedProbeOpensTheBreakerAgainAndRetriesAreHeldBackToo() async throws {
        let server = try MockServer(dispatcher: { _ in MockResponse(statusCode: 503) })
        let breaker = CircuitBreaker(failureRateThreshold: 1, windowSize: 2, openDuration: 1.5, halfOpenProbes: 1)
        let session = SessionManager(interceptor: Interceptor(interceptors: [
            breaker, RetryPolicy(retryLimit: 5, exponentialBackoffScale: 0.001),
        ]))
        let first = await session.request(server.url("/down")).validate().serializingData().response
        XCTAssertEqual(server.requestCount, 2, "the retry after the second failure met an open breaker")
        guard case .circuitOpen? = first.error else { return XCTFail("\(String(describing: first.error))") }

        try await Task.sleep(nanoseconds: 1_800_000_000)
        let probe = await session.request(server.url("/down")).validate().serializingData().response
        XCTAssertEqual(server.requestCount, 3, "one probe, which failed; its retry was refused")
        guard case .circuitOpen? = probe.error else { return XCTFail("\(String(describing: probe.error))") }
        XCTAssertEqual(breaker.state(forHost: "127.0.0.1:\(server.port)"), .open)
    }
}

extension CircuitBreakerTests {
    func testThatTheLoggingMonitorWritesTheRetryDelayAndTheBreakersTransitions() async throws {
        let server = try MockServer(dispatcher: { _ in MockResponse(statusCode: 503) })
        let lines = Recorder<String>()
        var logger = Logger(label: "test.resilience") { _ in CollectingLogHandler(lines: lines) }
        logger.logLevel = .debug
        let monitor = LoggingEventMonitor(logger: logger)
        let breaker = CircuitBreaker(failureRateThreshold: 1, windowSize: 1, openDuration: 60, halfOpenProbes: 1)
        let session = SessionManager(eventMonitors: [monitor], interceptor: Interceptor(interceptors: [
            breaker, RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01, jitter: .none),
        ]))
        let response = await session.request(server.url("/down")).validate().serializingData().response
        monitor.queue.sync {}
        guard case .circuitOpen? = response.error else { return XCTFail("\(String(describing: response.error))") }
        let all = lines.all
        XCTAssertTrue(all.contains { $0.hasSuffix("next attempt in 0.010 s") }, "\(all)")
        XCTAssertTrue(all.contains("warning: circuit breaker 127.0.0.1:\(server.port): closed → open"), "\(all)")
        XCTAssertEqual(server.requestCount, 1, "the retry met the open breaker")
    }
}

/// A Bool behind a lock, switched by a test while a server's dispatcher reads it.
final class LockedFlag: @unchecked Sendable { // guarded by `lock`
    private let lock = NSLock()
    private var flag = false
    var value: Bool {
        get { lock.withLock { flag } }
        set { lock.withLock { flag = newValue } }
    }
}
