import Curlfire
import Foundation
import XCTest

/// The RetryResult and asynchronous adapter forms: failing retriers, delays, retryCount, adapters.
final class RetryResultTests: XCTestCase {
    struct TestError: Error, Equatable { let tag: String }

    func testThatARetrierFailingWithAnErrorGivesRequestRetryFailed() async throws {
        let retrier = Retrier { _, _, _, completion in completion(.doNotRetryWithError(TestError(tag: "nope"))) }
        let response = await Curlfire.request(try Live.httpbin("/status/503")).retry(using: retrier)
            .validate().serializingData().response
        guard case let .requestRetryFailed(retryError, originalError)? = response.error else {
            return XCTFail(response.debugDescription)
        }
        XCTAssertEqual(retryError as? TestError, TestError(tag: "nope"))
        XCTAssertEqual((originalError as? CurlfireError)?.responseCode, 503)
    }

    func testThatRetryCountAndDelaysAreVisibleToTheRetrier() async throws {
        let seen = Recorder<Int>()
        let retrier = Retrier { request, _, _, completion in
            seen.append(request.retryCount)
            completion(request.retryCount < 2 ? .retryWithDelay(0.25) : .doNotRetry)
        }
        let started = Date()
        let request = Curlfire.request(try Live.httpbin("/status/500")).retry(using: retrier)
        let response = await request.validate().serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.error?.responseCode, 500)
        XCTAssertEqual(seen.all, [0, 1, 2])
        XCTAssertEqual(request.retryCount, 2)
        XCTAssertEqual(response.allMetrics.count, 3)
        XCTAssertGreaterThanOrEqual(elapsed, 0.5, "two delays of 0.25 s")
        XCTAssertLessThan(elapsed, 3, "delays are not much longer than asked")
    }

    func testThatTheAlamofire4FormStillDecides() async throws {
        struct Once: RequestRetrier {
            func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                        completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
                completion(request.retryCount == 0, 0)
            }
        }
        let request = Curlfire.request(try Live.httpbin("/status/502")).retry(using: Once())
        _ = await request.serializingData().response
        XCTAssertEqual(request.retryCount, 1)
    }

    func testThatAThrowingAdapterGivesRequestAdaptationFailed() async throws {
        let adapter = Adapter { _ in throw TestError(tag: "adapt") }
        let response = await Curlfire.request(try Live.httpbin("/get")).adapt(using: adapter).serializingData().response
        guard case let .requestAdaptationFailed(error)? = response.error else { return XCTFail(response.debugDescription) }
        XCTAssertEqual(error as? TestError, TestError(tag: "adapt"))
    }

    func testThatAnAsyncAdapterRunsBeforeEveryAttemptAndCanFail() async throws {
        let runs = Recorder<Int>()
        let adapter = AsyncAdapter { request in
            try await Task.sleep(nanoseconds: 20_000_000)
            runs.append(1)
            var request = request
            request.setValue("async-\(runs.all.count)", forHTTPHeaderField: "X-Adapted")
            return request
        }
        let response = await Curlfire.request(try Live.httpbin("/status/503")).adapt(using: adapter)
            .retry(using: RetryPolicy(exponentialBackoffScale: 0.01)).serializingData().response
        XCTAssertEqual(response.response?.statusCode, 503)
        XCTAssertEqual(runs.all.count, 3, "first attempt and two retries")
        XCTAssertEqual(response.request?.value(forHTTPHeaderField: "X-Adapted"), "async-3")
        XCTAssertThrowsError(try adapter.adapt(URLRequest(url: URL(string: "http://x")!)))

        let failing = AsyncAdapter { _ in throw TestError(tag: "async") }
        let failed = await Curlfire.request(try Live.httpbin("/get")).adapt(using: failing).serializingData().response
        guard case let .requestAdaptationFailed(error)? = failed.error else { return XCTFail(failed.debugDescription) }
        XCTAssertEqual(error as? TestError, TestError(tag: "async"))
    }
}
