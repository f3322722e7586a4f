import Curlfire
import Foundation
import XCTest

/// Retries against httpbin: an adapter that fails the first attempts makes a flaky endpoint.
final class RetryTests: XCTestCase {
    /// Sends attempt n to `paths[n]` (the last path once they run out), counting attempts.
    final class FlakyAdapter: RequestAdapter, @unchecked Sendable {
        private let lock = NSLock()
        private var attempts = 0
        private let base: String
        private let paths: [String]
        init(base: String, paths: [String]) { self.base = base; self.paths = paths }
        var count: Int { lock.withLock { attempts } }
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
            let index = lock.withLock { () -> Int in attempts += 1; return attempts - 1 }
            var request = urlRequest
            request.url = URL(string: base + paths[min(index, paths.count - 1)])
            return request
        }
    }

    func testThatAFlakyEndpointSucceedsOnTheThirdAttemptAfterBackoff() async throws {
        let base = try Live.httpbin("")
        let adapter = FlakyAdapter(base: base, paths: ["/status/503", "/status/503", "/get"])
        let policy = RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.1, jitter: .none)
        let started = Date()
        let response = await Curlfire.request(base + "/anything").adapt(using: adapter).retry(using: policy)
            .validate().serializingJSON().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.url?.path, "/get")
        XCTAssertEqual(adapter.count, 3, "the adapter runs again for every attempt")
        XCTAssertEqual(response.allMetrics.count, 3, "metrics of earlier attempts stay available")
        XCTAssertGreaterThanOrEqual(elapsed, 0.1 + 0.2, "backoff 0.1 s then 0.2 s")
        XCTAssertGreaterThan(response.timeline.requestStartTime, started.timeIntervalSinceReferenceDate + 0.29,
                             "the Timeline belongs to the last attempt")
    }

    func testThatPOSTIsNotRetriedByDefaultAnd404IsNot() async throws {
        let session = SessionManager()
        session.retrier = RetryPolicy(exponentialBackoffScale: 0.01)
        let post = session.request(try Live.httpbin("/status/503"), method: .post)
        let postResponse = await post.validate().serializingData().response
        XCTAssertEqual(postResponse.error?.responseCode, 503)
        XCTAssertEqual(post.retryCount, 0)
        let notFound = session.request(try Live.httpbin("/status/404"))
        _ = await notFound.serializingData().response
        XCTAssertEqual(notFound.retryCount, 0)
        let unavailable = session.request(try Live.httpbin("/status/503"))
        let final = await unavailable.validate().serializingData().response
        XCTAssertEqual(unavailable.retryCount, 2, "503 on GET is retried up to the limit")
        XCTAssertEqual(final.error?.responseCode, 503)
    }

    func testThatACancelledRequestIsNeverRetried() async throws {
        final class CountingRetrier: RequestRetrier, @unchecked Sendable {
            let asked = Recorder<Int>()
            func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                        completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
                asked.append(1)
                completion(true, 0)
            }
        }
        let retrier = CountingRetrier()
        let request = Curlfire.request(try Live.httpbin("/drip?duration=3&numbytes=3&delay=0")).retry(using: retrier)
        let firstByte = FirstByte()
        request.downloadProgress { firstByte.seen($0) }
        let waiter = ResponseWaiter<DataResponse<Data>>()
        request.responseData { waiter.fulfil($0) }
        await fulfillment(of: [firstByte.expectation], timeout: 5) // mid-transfer, not before it
        request.cancel()
        let response = await waiter.value
        guard case .explicitlyCancelled? = response.error else { return XCTFail(response.debugDescription) }
        XCTAssertTrue(retrier.asked.all.isEmpty)
    }
}
