@testable import Curlfire
import XCTest

final class RetryPolicyTests: XCTestCase {
    func testThatDelaysGrowExponentially() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(forRetry: 0), 0.5)
        XCTAssertEqual(policy.delay(forRetry: 1), 1.0)
        XCTAssertEqual(policy.delay(forRetry: 2), 2.0)
        XCTAssertEqual(RetryPolicy(exponentialBackoffBase: 3, exponentialBackoffScale: 0.1).delay(forRetry: 2), 0.9, accuracy: 1e-9)
    }

    func testThatOnlyIdempotentMethodsAndRetryableCausesAreRetried() {
        let policy = RetryPolicy()
        let unavailable = CurlfireError.responseValidationFailed(reason: .unacceptableStatusCode(code: 503))
        let notFound = CurlfireError.responseValidationFailed(reason: .unacceptableStatusCode(code: 404))
        let timedOut = CurlfireError.sessionTaskFailed(code: .timedOut, message: "")
        let badReply = CurlfireError.sessionTaskFailed(code: .badServerResponse, message: "")
        XCTAssertTrue(policy.shouldRetry(method: .get, statusCode: 503, error: unavailable))
        XCTAssertFalse(policy.shouldRetry(method: .get, statusCode: 404, error: notFound))
        XCTAssertFalse(policy.shouldRetry(method: .post, statusCode: 503, error: unavailable))
        XCTAssertFalse(policy.shouldRetry(method: .patch, statusCode: nil, error: timedOut))
        XCTAssertTrue(policy.shouldRetry(method: .put, statusCode: nil, error: timedOut))
        XCTAssertFalse(policy.shouldRetry(method: .get, statusCode: nil, error: badReply))
        XCTAssertTrue(RetryPolicy(retryableHTTPMethods: [.post]).shouldRetry(method: .post, statusCode: 500,
                                                                              error: unavailable))
    }
}
