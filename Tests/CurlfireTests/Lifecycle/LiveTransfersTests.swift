@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The session's registry of started, unfinished transfers (what `cancelAllRequests()` cancels): a
/// transfer joins when it starts and leaves when it delivers its outcome; one whose adapter never
/// answers ends at its resource deadline; `cancelAllRequests()` racing cancels and releases reaches
/// only live transfers. Through the fake engine: no libcurl, no network.
final class LiveTransfersTests: XCTestCase {
    /// An adapter that drops its completion without calling it: the request then waits for it until
    /// its resource deadline.
    private struct DroppingAdapter: RequestAdapter {
        let adapted: CallCount
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }
        func adapt(_ urlRequest: URLRequest, for session: SessionManager,
                   completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
            adapted.tick()
        }
    }

    /// Counts calls; `wait(for:)` returns once `expected` were made (or `timeout` passed: `false`).
    final class CallCount: @unchecked Sendable { // `count` under `condition`
        private let condition = NSCondition()
        private var count = 0
        func tick() { condition.withLock { count += 1; condition.broadcast() } }
        /// The calls so far.
        var calls: Int { condition.withLock { count } }
        func wait(for expected: Int, timeout: TimeInterval = 10) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            condition.lock()
            defer { condition.unlock() }
            while count < expected {
                guard condition.wait(until: deadline) else { return count >= expected }
            }
            return true
        }
    }

    /// Waits up to `timeout` seconds until `predicate` holds.
    private func eventually(timeout: TimeInterval = 10, _ predicate: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !predicate() {
            guard Date() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    func testThatARequestIsLiveFromItsStartUntilItsOutcomeIsDelivered() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let request = session.request("http://fake.test/live")
        XCTAssertTrue(session.liveTransfers.all.isEmpty, "not started: not live")
        let delivered = Awaited<DefaultDataResponse>()
        request.response { delivered.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(session.liveTransfers.all.map(ObjectIdentifier.init), [ObjectIdentifier(request.core.transfer)])
        fake.respond(attempt, status: 200)
        XCTAssertNil(try XCTUnwrap(delivered.wait()).error)
        XCTAssertTrue(session.liveTransfers.all.isEmpty, "delivered: no longer live")
    }

    func testThatARequestWhoseAdapterDropsItsCompletionEndsAtItsDeadlineAndLeaves() throws {
        let adapted = CallCount()
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForResource = 0.3
        let session = FakeEngine().session(configuration: configuration)
        session.adapter = DroppingAdapter(adapted: adapted)
        weak var transfer: Transfer?
        let delivered = Awaited<DefaultDataResponse>()
        do {
            let request = session.request("http://fake.test/dropped")
            transfer = request.core.transfer
            request.response { delivered.set($0) }
            XCTAssertTrue(adapted.wait(for: 1))
            XCTAssertEqual(session.liveTransfers.all.count, 1, "waiting for its adapter: live")
        }
        let response = try XCTUnwrap(delivered.wait(), "the resource deadline ends it")
        guard case let .sessionTaskFailed(code, _)? = response.error else {
            return XCTFail("\(String(describing: response.error))")
        }
        XCTAssertEqual(code, .timedOut)
        XCTAssertTrue(session.liveTransfers.all.isEmpty, "delivered: no longer live")
        XCTAssertTrue(eventually { transfer == nil }, "and nothing keeps it")
    }

    /// `cancelAllRequests()` in a loop while requests start and are cancelled from other threads,
    /// some between their start and their joining the registry, and are released as soon as they
    /// deliver: every request is delivered once, no transfer `cancelAllRequests()` reaches is one
    /// being freed (the sanitizer runs check the memory), and the registry ends empty.
    func testThatCancelAllRequestsRacingCancelsAndReleasesTouchesNoTransferBeingFreed() throws {
        let session = FakeEngine().session()
        let stop = StopFlag()
        let stopped = DispatchSemaphore(value: 0)
        let canceller = Thread {
            while !stop.isSet { session.cancelAllRequests() }
            stopped.signal()
        }
        canceller.start()
        let delivered = CallCount()
        let requests = 2_000
        DispatchQueue.concurrentPerform(iterations: requests) { index in
            let request = session.request("http://fake.test/race/\(index)")
            DispatchQueue.global().async { request.cancel() }
            request.response { _ in delivered.tick() }
        }
        let allDelivered = delivered.wait(for: requests, timeout: 60)
        let emptied = eventually(timeout: 30) { session.liveTransfers.all.isEmpty }
        stop.set()
        stopped.wait()
        XCTAssertTrue(allDelivered, "every request was cancelled and delivered that")
        XCTAssertEqual(delivered.calls, requests, "each once")
        XCTAssertTrue(emptied, "every transfer left the registry")
    }
}

/// A flag one thread sets and another polls.
private final class StopFlag: @unchecked Sendable { // `value` under `lock`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
