import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `IdempotencyKeyAdapter` with `RetryPolicy`: the key recorded by MockServer across retries and a
/// redirect.
final class IdempotencyKeyTests: XCTestCase {
    static let interceptor = Interceptor(adapters: [IdempotencyKeyAdapter()],
                                         retriers: [RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01)])

    func testThatAPOSTKeepsItsKeyOnEveryRetryAndRedirectAndIsRetried() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(statusCode: 307, headers: ["Location": "/payments/v2"]))
        server.enqueue(MockResponse(statusCode: 503))
        server.enqueue(MockResponse(statusCode: 429, headers: ["Retry-After": "0"]))
        server.enqueue(.text("charged"))
        let session = SessionManager(interceptor: Self.interceptor)
        let request = session.request(server.url("/payments"), method: .post, parameters: ["amount": 5],
                                      encoding: JSONEncoding.default)
        let response = await request.validate().serializingString().response
        XCTAssertEqual(response.value, "charged", response.debugDescription)
        let recorded = (0..<4).compactMap { _ in server.takeRequest() }
        XCTAssertEqual(recorded.map(\.path), ["/payments", "/payments/v2", "/payments", "/payments"],
                       "the 307 hop, then retries from the start")
        XCTAssertEqual(recorded.map(\.method), ["POST", "POST", "POST", "POST"])
        let keys = recorded.map { $0.header("Idempotency-Key") }
        XCTAssertEqual(keys.first, "\"\(request.id.uuidString.lowercased())\"")
        XCTAssertEqual(Set(keys).count, 1, "one key for the whole request: \(keys)")
        XCTAssertTrue(recorded.allSatisfy { $0.body == Data(#"{"amount":5}"#.utf8) }, "the body went every time")

        server.enqueue(.text("again"))
        _ = await session.request(server.url("/payments"), method: .patch).serializingData().response
        let other = server.takeRequest()?.header("Idempotency-Key")
        XCTAssertNotNil(other)
        XCTAssertNotEqual(other, keys.first, "another request, another key")
    }

    func testThatAPOSTWithoutAKeyIsNotRetriedAndGETGetsNoKey() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(statusCode: 503))
        server.enqueue(MockResponse(statusCode: 503))
        server.enqueue(.text("ok"))
        let session = SessionManager(interceptor: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.01))
        let post = await session.request(server.url("/no-key"), method: .post).validate().serializingData().response
        XCTAssertEqual(post.error?.responseCode, 503)
        XCTAssertEqual(server.requestCount, 1, "POST without Idempotency-Key: not retried")
        XCTAssertNil(server.takeRequest()?.header("Idempotency-Key"))

        let keyed = SessionManager(interceptor: Self.interceptor)
        let get = await keyed.request(server.url("/get")).validate().serializingString().response
        XCTAssertEqual(get.value, "ok")
        let gets = (0..<2).compactMap { _ in server.takeRequest() }
        XCTAssertEqual(gets.count, 2)
        XCTAssertTrue(gets.allSatisfy { $0.header("Idempotency-Key") == nil }, "GET is idempotent already")
    }
}
