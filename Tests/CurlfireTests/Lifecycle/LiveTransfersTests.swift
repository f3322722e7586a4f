@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// What `cancelAllRequests()` reaches: a running request through the engine (which never puts it in
/// the session's registry), one that reaches the engine after the call when it started before it,
/// one waiting outside the engine through the registry it joined (it leaves when it delivers its
/// outcome; one whose adapter never answers ends at its resource deadline); racing cancels and
/// releases, only live transfers. Through the fake engine: no libcurl, no network.
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

    func testThatARunningRequestIsReachedThroughTheEngineAndNeverJoinsTheRegistry() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let request = session.request("http://fake.test/live")
        let delivered = Awaited<DefaultDataResponse>()
        request.response { delivered.set($0) }
        _ = try XCTUnwrap(fake.nextAttempt())
        XCTAssertTrue(session.liveTransfers.all.isEmpty, "in the engine: not in the registry")
        let completed = Awaited<Bool>()
        session.cancelAllRequests { completed.set(true) }
        let response = try XCTUnwrap(delivered.wait())
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, "\(String(describing: response.error))")
        XCTAssertEqual(completed.wait(), true, "the completion runs")
        XCTAssertEqual(fake.log, ["add GET http://fake.test/live", "cancelStarted", "cancel"])
        XCTAssertEqual(request.state, .cancelled)
    }

    func testThatARequestDeliveredBeforeCancelAllRequestsKeepsItsOutcome() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let request = session.request("http://fake.test/done")
        let delivered = Awaited<DefaultDataResponse>()
        request.response { delivered.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 200)
        XCTAssertNil(try XCTUnwrap(delivered.wait()).error)
        let completed = Awaited<Bool>()
        session.cancelAllRequests { completed.set(true) }
        XCTAssertEqual(completed.wait(), true)
        XCTAssertEqual(request.state, .finished, "a finished request is not cancelled")
        XCTAssertEqual(fake.log.filter { $0 == "cancel" }, [], "nothing to cancel")
    }

    /// The window the registry no longer covers: a request that started before `cancelAllRequests()`
    /// and reaches the engine after its command is cancelled when it arrives; one started after is not.
    func testThatARequestReachingTheEngineAfterCancelAllRequestsIsCancelledOnlyIfItStartedBefore() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        fake.holdAdds(arrived: arrived, release: release)
        let early = session.request("http://fake.test/early")
        let earlyDelivered = Awaited<DefaultDataResponse>()
        DispatchQueue.global().async { early.response { earlyDelivered.set($0) } } // its add waits in the fake
        XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success, "started; its attempt on the way")
        let completed = Awaited<Bool>()
        session.cancelAllRequests { completed.set(true) }
        XCTAssertEqual(completed.wait(), true, "the command came first, with nothing running")
        fake.holdAdds(arrived: nil, release: nil)
        release.signal()
        let response = try XCTUnwrap(earlyDelivered.wait())
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, "\(String(describing: response.error))")

        let late = session.request("http://fake.test/late")
        let lateDelivered = Awaited<DefaultDataResponse>()
        late.response { lateDelivered.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(attempt.request.url?.path, "/late")
        fake.respond(attempt, status: 200)
        XCTAssertNil(try XCTUnwrap(lateDelivered.wait()).error, "started after the call: not affected")
    }

    func testThatCancelAllRequestsCancelsARequestWaitingForItsAdapter() throws {
        let adapted = CallCount()
        let fake = FakeEngine()
        let session = fake.session()
        session.adapter = DroppingAdapter(adapted: adapted)
        let request = session.request("http://fake.test/adapting")
        let delivered = Awaited<DefaultDataResponse>()
        request.response { delivered.set($0) }
        XCTAssertTrue(adapted.wait(for: 1))
        XCTAssertEqual(session.liveTransfers.all.map(ObjectIdentifier.init), [ObjectIdentifier(request.core.transfer)],
                       "waiting outside the engine: in the registry")
        session.cancelAllRequests()
        let response = try XCTUnwrap(delivered.wait())
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, "\(String(describing: response.error))")
        XCTAssertTrue(session.liveTransfers.all.isEmpty, "delivered: no longer in the registry")
        XCTAssertEqual(fake.attemptCount, 0, "never sent")
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
    /// some between their start and their reaching the engine, and are released as soon as they
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
