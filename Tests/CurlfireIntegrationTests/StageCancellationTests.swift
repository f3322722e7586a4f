import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Cancellation at every stage of a request — while a retrier deliberates, while a retry delay
/// runs, while an async adapter or a redirect handler decides — ends it at once with
/// `explicitlyCancelled`, and late answers of the abandoned stage are ignored (httpbin).
final class StageCancellationTests: XCTestCase {
    /// How long a cancelled request may take to end (the issue asks for < 100 ms; the bound leaves
    /// room for a loaded CI machine and sanitizers, and the measured time is printed).
    static let bound: TimeInterval = 1.0

    /// Signals once when a stage has been reached.
    final class Reached: @unchecked Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func signal() { semaphore.signal() }
        /// Waits off the cooperative pool.
        func wait(timeout: TimeInterval = 10) async -> Bool {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: self.semaphore.wait(timeout: .now() + timeout) == .success)
                }
            }
        }
    }

    /// Attaches a handler, waits for the stage, cancels, and returns the response and how long the
    /// cancel took to deliver it.
    private func cancelAtStage(_ request: DataRequest, reached: Reached,
                               file: StaticString = #filePath, line: UInt = #line) async -> (DataResponse<Data>, TimeInterval) {
        let waiter = ResponseWaiter<DataResponse<Data>>()
        request.responseData { waiter.fulfil($0) }
        let wasReached = await reached.wait()
        XCTAssertTrue(wasReached, "the stage was never reached", file: file, line: line)
        let cancelled = Date()
        request.cancel()
        let response = await waiter.value
        let elapsed = Date().timeIntervalSince(cancelled)
        print("cancel to completion: \(Int(elapsed * 1000)) ms")
        XCTAssertLessThan(elapsed, Self.bound, file: file, line: line)
        guard case .explicitlyCancelled? = response.error else {
            XCTFail("expected explicitlyCancelled, got \(response.debugDescription)", file: file, line: line)
            return (response, elapsed)
        }
        return (response, elapsed)
    }

    func testThatCancelEndsARequestWhoseRetrierNeverAnswers() async throws {
        let reached = Reached()
        let request = SessionManager().request(try Live.httpbin("/status/500"))
            .retry(using: Retrier { _, _, _, _ in reached.signal() }) // never calls back
        _ = await cancelAtStage(request, reached: reached)
    }

    func testThatCancelEndsARetryDelayOfThirtySecondsAndTheLateRetryIsIgnored() async throws {
        let marker = Live.marker()
        let reached = Reached()
        let retries = Recorder<Int>()
        let request = SessionManager().request(try Live.httpbin("/status/503?marker=\(marker)"))
            .retry(using: Retrier { request, _, _, completion in
                retries.append(request.retryCount)
                completion(.retryWithDelay(30))
                reached.signal()
            })
        _ = await cancelAtStage(request, reached: reached)
        XCTAssertEqual(try Live.servers().accessLogLines("httpbin", containing: marker).count, 1,
                       "the retry never ran")
        XCTAssertEqual(retries.all, [0])
    }

    func testThatALateRetrierAnswerAfterCancelSendsNothing() async throws {
        let marker = Live.marker()
        let reached = Reached()
        let answer = Recorder<@Sendable (RetryResult) -> Void>()
        let request = SessionManager().request(try Live.httpbin("/status/500?marker=\(marker)"))
            .retry(using: Retrier { _, _, _, completion in
                answer.append(completion)
                reached.signal()
            })
        _ = await cancelAtStage(request, reached: reached)
        answer.all.first?(.retry) // the abandoned stage answers late
        // The retrier keeps its completion, which holds the transfer, whose definition holds the retrier:
        // a cycle of this test's making (a retrier that never answers), broken here for LeakSanitizer.
        answer.removeAll()
        XCTAssertEqual(try Live.servers().accessLogLines("httpbin", containing: marker, timeout: 1).count, 1,
                       "the late answer was ignored: no second request")
    }

    func testThatCancelEndsARequestWhoseAsyncAdapterWaits() async throws {
        let marker = Live.marker()
        let reached = Reached()
        let request = SessionManager().request(try Live.httpbin("/get?marker=\(marker)"))
            .adapt(using: AsyncAdapter { request in
                reached.signal()
                try? await Task.sleep(nanoseconds: 30_000_000_000)
                return request
            })
        _ = await cancelAtStage(request, reached: reached)
        XCTAssertTrue(try Live.servers().accessLogLines("httpbin", containing: marker, timeout: 0.5).isEmpty)
    }

    func testThatCancelEndsARequestWhoseRedirectHandlerNeverAnswers() async throws {
        let reached = Reached()
        let request = SessionManager().request(try Live.httpbin("/redirect/2"))
            .redirect(using: Blackhole(reached: reached))
        let (response, _) = await cancelAtStage(request, reached: reached)
        XCTAssertEqual(response.response?.statusCode, 302, "the last response seen is kept")
    }

    func testThatCancellingTheAwaitingTaskEndsARequestWhoseRetrierNeverAnswers() async throws {
        let reached = Reached()
        let request = SessionManager().request(try Live.httpbin("/status/500"))
            .retry(using: Retrier { _, _, _, _ in reached.signal() })
        let task = Task { await request.serializingData().response }
        let wasReached = await reached.wait()
        XCTAssertTrue(wasReached)
        let cancelled = Date()
        task.cancel()
        let response = await task.value
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), Self.bound)
        guard case .explicitlyCancelled? = response.error else { return XCTFail(response.debugDescription) }
    }

    /// A redirect handler that never answers.
    struct Blackhole: RedirectHandler {
        let reached: Reached
        func request(_ request: any Request, willBeRedirectedTo redirect: URLRequest, for response: HTTPURLResponse,
                     completion: @escaping @Sendable (URLRequest?) -> Void) {
            reached.signal()
        }
    }
}

/// The retrier is asked when an adapter fails (the token-refresh pattern of Alamofire 4 and 5).
final class AdapterRetryTests: XCTestCase {
    enum TokenError: Error { case noTokenYet }

    /// Throws until a token exists; the retrier "refreshes" it.
    final class TokenBox: @unchecked Sendable {
        private let lock = NSLock()
        private var token: String?
        var current: String? { lock.withLock { token } }
        func refresh() { lock.withLock { token = "t1" } }
    }

    func testThatAnAdapterThatThrowsOnceIsRetriedAfterTheRetrierRefreshes() async throws {
        let box = TokenBox()
        let adaptations = Recorder<String>()
        let asked = Recorder<String>()
        let marker = Live.marker()
        let response = await SessionManager().request(try Live.httpbin("/headers?marker=\(marker)"))
            .adapt(using: Adapter { request in
                guard let token = box.current else {
                    adaptations.append("threw")
                    throw TokenError.noTokenYet
                }
                adaptations.append("adapted")
                var request = request
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                return request
            })
            .retry(using: Retrier { _, _, error, completion in
                asked.append(String(describing: error))
                box.refresh()
                completion(.retry)
            })
            .validate().serializingJSON().response
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(adaptations.all, ["threw", "adapted"])
        XCTAssertEqual(asked.all.count, 1)
        XCTAssertTrue(asked.all.first?.contains("adaptation") ?? false, "\(asked.all)")
        let headers = (response.value as? [String: Any])?["headers"] as? [String: String]
        XCTAssertEqual(headers?["Authorization"], "Bearer t1")
        XCTAssertEqual(try Live.servers().accessLogLines("httpbin", containing: marker).count, 1,
                       "only the adapted request was sent")
    }

    func testThatAnAdapterFailureTheRetrierDeclinesIsDeliveredAsTheAdaptationFailure() async throws {
        let response = await SessionManager().request(try Live.httpbin("/get"))
            .adapt(using: Adapter { _ in throw TokenError.noTokenYet })
            .retry(using: Retrier { _, _, _, completion in completion(.doNotRetry) })
            .serializingData().response
        guard case let .requestAdaptationFailed(error)? = response.error else { return XCTFail(response.debugDescription) }
        XCTAssertTrue(error is TokenError)
    }
}

/// `timeoutIntervalForResource` bounds the whole request: attempts, retry delays and hops together.
final class ResourceTimeoutTests: XCTestCase {
    private func session(resourceTimeout: TimeInterval) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForResource = resourceTimeout
        return SessionManager(configuration: configuration)
    }

    private func assertResourceTimeout(_ response: DataResponse<Data>, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .sessionTaskFailed(.timedOut, message)? = response.error else {
            return XCTFail("expected a resource timeout, got \(response.debugDescription)", file: file, line: line)
        }
        XCTAssertTrue(message.contains("timeoutIntervalForResource"), message, file: file, line: line)
    }

    func testThatRetriesTogetherCannotOutliveTheResourceTimeout() async throws {
        let attempts = Recorder<Int>()
        let started = Date()
        let response = await session(resourceTimeout: 1).request(try Live.httpbin("/status/500"))
            .retry(using: Retrier { request, _, _, completion in
                attempts.append(request.retryCount)
                completion(request.retryCount < 20 ? .retryWithDelay(0.3) : .doNotRetry)
            })
            .serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        assertResourceTimeout(response)
        XCTAssertLessThan(elapsed, 2.0, "ended near the 1 s deadline, not after 20 retries")
        XCTAssertGreaterThanOrEqual(elapsed, 0.9)
        XCTAssertLessThan(attempts.all.count, 6)
    }

    func testThatARetryDelayLongerThanTheDeadlineEndsAtTheDeadline() async throws {
        let started = Date()
        let response = await session(resourceTimeout: 0.8).request(try Live.httpbin("/status/503"))
            .retry(using: Retrier { _, _, _, completion in completion(.retryWithDelay(30)) })
            .serializingData().response
        assertResourceTimeout(response)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.0)
    }

    func testThatAnAttemptRunningPastTheDeadlineIsStopped() async throws {
        let started = Date()
        let response = await session(resourceTimeout: 1).request(try Live.httpbin("/delay/5"))
            .serializingData().response
        assertResourceTimeout(response)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.0)
    }

    func testThatRedirectHopsShareOneDeadline() async throws {
        // Each hop takes ~0.6 s; three of them cannot fit in 1.2 s together, though each fits alone.
        let hop3 = try Live.httpbin("/delay/0.6")
        let hop2 = try Live.httpbin("/redirect-to?url=" + hop3.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let started = Date()
        let response = await session(resourceTimeout: 1.2)
            .request(try Live.httpbin("/redirect-to?url=" + hop2.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!))
            .redirect(using: Redirector(behavior: .modify { redirect, _ in
                Thread.sleep(forTimeInterval: 0.6) // a slow redirect handler counts too
                return redirect
            }))
            .serializingData().response
        assertResourceTimeout(response)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
    }
}

/// One rule for request values: modifiers that change what is sent never start a second transfer
/// behind the user's back.
final class RequestValueRuleTests: XCTestCase {
    func testThatAModifierAfterAHandlerFailsWithATypedErrorAndSendsNothing() async throws {
        let marker = Live.marker()
        let request = SessionManager().request(try Live.httpbin("/get?marker=\(marker)"))
        let first = ResponseWaiter<DataResponse<Data>>()
        request.responseData { first.fulfil($0) }
        let late = await request.authenticate(user: "u", password: "p").serializingData().response
        guard case let .requestAlreadyStarted(modifier)? = late.error else { return XCTFail(late.debugDescription) }
        XCTAssertTrue(modifier.hasPrefix("authenticate"), modifier)
        let original = await first.value
        XCTAssertNil(original.error, original.debugDescription)
        XCTAssertEqual(try Live.servers().accessLogLines("httpbin", containing: marker).count, 1,
                       "exactly one request reached the server")
    }

    func testThatModifiersBeforeAnyHandlerShapeOneRequest() async throws {
        let response = await SessionManager().request(try Live.httpbin("/basic-auth/u/p"))
            .authenticate(user: "u", password: "p")
            .validate().serializingData().response
        XCTAssertNil(response.error, response.debugDescription)
    }
}
