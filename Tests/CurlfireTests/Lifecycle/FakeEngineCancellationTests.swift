@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// An adapter that holds each request until the test lets it through.
struct HeldAdapter: RequestAdapter {
    let release: Awaited<@Sendable () -> Void>

    func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }

    func adapt(_ urlRequest: URLRequest, for session: SessionManager,
               completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        release.set { completion(.success(urlRequest)) }
    }
}

/// A retrier that holds its answer until the test gives it.
struct HeldRetrier: RequestRetrier {
    let answer: Awaited<@Sendable (Bool, TimeInterval) -> Void>

    func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        answer.set(completion)
    }
}

/// A redirect handler that holds its answer until the test gives it.
struct HeldRedirectHandler: RedirectHandler {
    let answer: Awaited<@Sendable () -> Void>

    func request(_ request: any Request, willBeRedirectedTo redirect: URLRequest, for response: HTTPURLResponse,
                 completion: @escaping @Sendable (URLRequest?) -> Void) {
        answer.set { completion(redirect) }
    }
}

/// `cancel()` in every stage of a request, through a fake engine (FakeEngine.swift): each ends the
/// request at once with `explicitlyCancelled` — only a running attempt waits for the engine to stop
/// it — and the abandoned stage's late answer starts nothing. No libcurl, no network.
final class FakeEngineCancellationTests: XCTestCase {
    private let url = "http://fake.test/resource"

    /// Waits until the request's state machine is in the state `named` (RequestStateMachineTests' names).
    private func waitForMachine(_ request: DataRequest, _ named: String, file: StaticString = #filePath,
                                line: UInt = #line) {
        let transfer = request.core.transfer
        let deadline = Date().addingTimeInterval(10)
        var state = transfer.withLock { $0.machine.state }
        while RequestStateMachineTests.name(state) != named, Date() < deadline {
            usleep(2_000)
            state = transfer.withLock { $0.machine.state }
        }
        XCTAssertEqual(RequestStateMachineTests.name(state), named, file: file, line: line)
    }

    private func assertCancelled(_ done: Awaited<DefaultDataResponse>, file: StaticString = #filePath, line: UInt = #line) {
        guard let response = done.wait() else { return XCTFail("no response", file: file, line: line) }
        guard case .explicitlyCancelled? = response.error else {
            return XCTFail("expected explicitlyCancelled, got \(String(describing: response.error))", file: file, line: line)
        }
    }

    func testThatCancelWhileIdleEndsTheRequestWithoutAnAttempt() {
        let fake = FakeEngine()
        let session = fake.session()
        session.startRequestsImmediately = false
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }
        waitForMachine(request, "idle")
        request.cancel()
        assertCancelled(done)
        XCTAssertEqual(request.state, .cancelled)
        request.resume()
        XCTAssertNil(fake.nextAttempt(timeout: 0.2), "a cancelled request never starts")
        XCTAssertEqual(fake.log, [])
    }

    func testThatCancelWhileAdaptingEndsAtOnceAndTheLateAdapterStartsNothing() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let release = Awaited<@Sendable () -> Void>()
        session.adapter = HeldAdapter(release: release)
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }
        let letThrough = try XCTUnwrap(release.take())
        waitForMachine(request, "adapting")
        request.cancel()
        assertCancelled(done)
        letThrough()
        XCTAssertNil(fake.nextAttempt(timeout: 0.2), "the abandoned adapter's answer started an attempt")
        XCTAssertEqual(fake.attemptCount, 0)
    }

    func testThatCancelWhileRunningStopsTheAttemptInTheEngine() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }
        _ = try XCTUnwrap(fake.nextAttempt())
        waitForMachine(request, "running")
        request.cancel()
        assertCancelled(done)
        XCTAssertEqual(fake.log.last, "cancel")
        XCTAssertEqual(request.state, .cancelled)
        XCTAssertEqual(fake.attemptCount, 1)
    }

    func testThatCancelWhileAwaitingARetryDecisionEndsAtOnceAndTheLateRetryStartsNothing() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let answer = Awaited<@Sendable (Bool, TimeInterval) -> Void>()
        session.retrier = HeldRetrier(answer: answer)
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 503)
        let retry = try XCTUnwrap(answer.take())
        waitForMachine(request, "awaitingRetry")
        request.cancel()
        assertCancelled(done)
        retry(true, 0)
        XCTAssertNil(fake.nextAttempt(timeout: 0.2), "the abandoned retrier's answer started an attempt")
        XCTAssertEqual(fake.attemptCount, 1)
    }

    func testThatCancelWhileDelayingARetryEndsAtOnceNotWhenTheDelayEnds() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.retrier = ScriptedRetrier(asked: Recorder<String>(), retries: 1, delay: 60)
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 503)
        waitForMachine(request, "delaying")
        let cancelledAt = Date()
        request.cancel()
        assertCancelled(done)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 10, "the cancel waited for the retry delay")
        XCTAssertEqual(fake.attemptCount, 1)
    }

    func testThatCancelWhileAwaitingARedirectDecisionEndsAtOnceAndTheLateFollowStartsNothing() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let answer = Awaited<@Sendable () -> Void>()
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).redirect(using: HeldRedirectHandler(answer: answer)).response { done.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 302, headers: ["Location": "/next"])
        let follow = try XCTUnwrap(answer.take())
        waitForMachine(request, "awaitingRedirect")
        request.cancel()
        assertCancelled(done)
        follow()
        XCTAssertNil(fake.nextAttempt(timeout: 0.2), "the abandoned redirect handler's answer started an attempt")
        XCTAssertEqual(fake.attemptCount, 1)
    }

    func testThatSuspendAndResumeOfARunningAttemptPauseAndContinueItInTheEngine() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        request.suspend()
        XCTAssertEqual(request.state, .suspended)
        request.resume()
        XCTAssertEqual(Array(fake.log.suffix(2)), ["pause", "unpause"])
        fake.respond(attempt, status: 204)
        XCTAssertEqual(done.wait()?.response?.statusCode, 204)
        request.suspend()
        XCTAssertEqual(fake.log.last, "unpause", "a finished request is not paused")
    }

    func testThatAnAttemptTheExecutorRefusesEndsWithSessionDeinitialized() {
        let fake = FakeEngine()
        let session = fake.session()
        fake.shutdown()
        let done = Awaited<DefaultDataResponse>()
        session.request(url).response { done.set($0) }
        guard case .sessionDeinitialized? = done.wait()?.error else {
            return XCTFail("expected sessionDeinitialized")
        }
    }
}
