@testable import Curlfire
import Foundation
import XCTest

/// `RetryPolicy`'s decision as a table: (policy, failed attempt) → retry after a delay or not, and
/// why. The jitter's draw is fixed so every row is exact; no network.
final class RetryDecisionTests: XCTestCase {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func attempt(_ method: HTTPMethod? = .get, status: Int? = 503, transport: TransportErrorCode? = nil,
                        retries: Int = 0, retryAfter: String? = nil, key: Bool = false) -> RetryContext {
        RetryContext(method: method, statusCode: status, transportErrorCode: transport, retryCount: retries,
                     retryAfter: retryAfter, hasIdempotencyKey: key)
    }

    func testThatTheDecisionTableHolds() {
        let plain = RetryPolicy(jitter: .none)              // backoff 0.5 × 2^n
        let jittered = RetryPolicy()                        // .full by default
        let capped = RetryPolicy(maximumRetryAfter: 5, jitter: .none)
        let postListed = RetryPolicy(retryableHTTPMethods: [.post], jitter: .none)
        let inTwoMinutes = "Tue, 14 Nov 2023 22:15:20 GMT" // now + 120 s
        let inHalfAMinute = "Tue, 14 Nov 2023 22:13:50 GMT"
        let past = "Tue, 14 Nov 2023 22:00:00 GMT"
        let rows: [(String, RetryPolicy, RetryContext, RetryDecision)] = [
            ("503 GET, first retry", plain, Self.attempt(), .retry(after: 0.5)),
            ("503 GET, second retry", plain, Self.attempt(retries: 1), .retry(after: 1)),
            ("503 GET, limit reached", plain, Self.attempt(retries: 2), .doNotRetry(.limitReached)),
            ("429 retried by default", plain, Self.attempt(status: 429), .retry(after: 0.5)),
            ("404 not retried", plain, Self.attempt(status: 404), .doNotRetry(.notRetryable)),
            ("timed out GET", plain, Self.attempt(status: nil, transport: .timedOut), .retry(after: 0.5)),
            ("bad server response", plain, Self.attempt(status: nil, transport: .badServerResponse),
             .doNotRetry(.notRetryable)),
            ("POST without a key", plain, Self.attempt(.post), .doNotRetry(.notRetryable)),
            ("POST with a key", plain, Self.attempt(.post, key: true), .retry(after: 0.5)),
            ("PATCH with a key", plain, Self.attempt(.patch, key: true), .retry(after: 0.5)),
            ("PATCH without a key, timed out", plain, Self.attempt(.patch, status: nil, transport: .timedOut),
             .doNotRetry(.notRetryable)),
            ("POST listed, no key", postListed, Self.attempt(.post), .retry(after: 0.5)),
            ("CONNECT with a key is not POST/PATCH", plain, Self.attempt(.connect, key: true),
             .doNotRetry(.notRetryable)),
            ("no method", plain, Self.attempt(nil), .doNotRetry(.notRetryable)),
            ("Retry-After seconds", plain, Self.attempt(status: 429, retryAfter: "3"), .retry(after: 3)),
            ("Retry-After 0", plain, Self.attempt(status: 429, retryAfter: "0"), .retry(after: 0)),
            ("Retry-After HTTP date", plain, Self.attempt(retryAfter: inHalfAMinute), .retry(after: 30)),
            ("Retry-After HTTP date past the cap", plain, Self.attempt(retryAfter: inTwoMinutes),
             .doNotRetry(.retryAfterTooLong)),
            ("Retry-After date in the past", plain, Self.attempt(retryAfter: past), .retry(after: 0)),
            ("Retry-After past the 60 s default cap", plain, Self.attempt(retryAfter: "61"),
             .doNotRetry(.retryAfterTooLong)),
            ("Retry-After at the cap", plain, Self.attempt(retryAfter: "60"), .retry(after: 60)),
            ("Retry-After past a 5 s cap", capped, Self.attempt(retryAfter: "6"), .doNotRetry(.retryAfterTooLong)),
            ("Retry-After date past a 5 s cap", capped, Self.attempt(retryAfter: inTwoMinutes),
             .doNotRetry(.retryAfterTooLong)),
            ("Retry-After huge", plain, Self.attempt(retryAfter: "99999999999999999999"),
             .doNotRetry(.retryAfterTooLong)),
            ("Retry-After garbage: backoff", plain, Self.attempt(retryAfter: "soon"), .retry(after: 0.5)),
            ("Retry-After negative: backoff", plain, Self.attempt(retryAfter: "-5"), .retry(after: 0.5)),
            ("Retry-After on a 404 changes nothing", plain, Self.attempt(status: 404, retryAfter: "1"),
             .doNotRetry(.notRetryable)),
            ("full jitter draws within the backoff", jittered, Self.attempt(retries: 1), .retry(after: 0.25)),
            ("full jitter adds to Retry-After", jittered, Self.attempt(retryAfter: "2"), .retry(after: 2.125)),
        ]
        for (name, policy, context, expected) in rows {
            let decision = policy.decide(context, now: Self.now, draw: { $0 / 4 })
            XCTAssertEqual(decision, expected, name)
        }
    }

    func testThatFullJitterStaysWithinTheBackoffAndSpreads() {
        let policy = RetryPolicy(exponentialBackoffScale: 1)
        var delays: Set<TimeInterval> = []
        for _ in 0..<200 {
            guard case let .retry(delay) = policy.decide(Self.attempt(retries: 1), now: Self.now,
                                                         draw: { Double.random(in: 0...$0) })
            else { return XCTFail("not retried") }
            XCTAssertTrue((0...2).contains(delay), "\(delay)")
            delays.insert(delay)
        }
        XCTAssertGreaterThan(delays.count, 150, "200 draws are spread, not in lockstep")
        // A draw outside 0...backoff (a faulty generator) is clamped.
        XCTAssertEqual(policy.decide(Self.attempt(), now: Self.now, draw: { $0 * 10 }), .retry(after: 1))
        XCTAssertEqual(policy.decide(Self.attempt(), now: Self.now, draw: { _ in -3 }), .retry(after: 0))
    }

    func testThatRetryAfterParsesBothForms() {
        XCTAssertEqual(RetryAfter.delay(from: "120", now: Self.now), 120)
        XCTAssertEqual(RetryAfter.delay(from: " 7 ", now: Self.now), 7)
        XCTAssertEqual(RetryAfter.delay(from: "Tue, 14 Nov 2023 22:13:30 GMT", now: Self.now), 10)
        XCTAssertEqual(RetryAfter.delay(from: "Tuesday, 14-Nov-23 22:13:30 GMT", now: Self.now), 10)
        XCTAssertEqual(RetryAfter.delay(from: "1000000000000000000000", now: Self.now), .infinity)
        XCTAssertNil(RetryAfter.delay(from: "", now: Self.now))
        XCTAssertNil(RetryAfter.delay(from: "1.5", now: Self.now))
        XCTAssertNil(RetryAfter.delay(from: "-1", now: Self.now))
        XCTAssertNil(RetryAfter.delay(from: "tomorrow", now: Self.now))
    }

    func testThatTheNewParametersHaveTheirDefaults() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.maximumRetryAfter, 60)
        XCTAssertEqual(policy.jitter, .full)
        XCTAssertNil(policy.budget)
        XCTAssertEqual(policy.retryableHTTPStatusCodes, [408, 429, 500, 502, 503, 504])
        XCTAssertEqual(policy.retryLimit, 2)
        XCTAssertEqual(policy.delay(forRetry: 1), 1, "the backoff itself is unchanged")
    }

    func testThatTheIdempotencyKeyIsAddedToPOSTAndPATCHOnlyAndKept() throws {
        let id = UUID()
        var post = URLRequest(url: URL(string: "http://h/x")!)
        post.httpMethod = "POST"
        let keyed = IdempotencyKeyAdapter.keyed(post, key: id)
        XCTAssertEqual(keyed.value(forHTTPHeaderField: "Idempotency-Key"), "\"\(id.uuidString.lowercased())\"")
        XCTAssertEqual(IdempotencyKeyAdapter.keyed(keyed, key: UUID()).value(forHTTPHeaderField: "Idempotency-Key"),
                       keyed.value(forHTTPHeaderField: "Idempotency-Key"), "a request's own key is kept")
        var patch = post
        patch.httpMethod = "PATCH"
        XCTAssertNotNil(IdempotencyKeyAdapter.keyed(patch, key: id).value(forHTTPHeaderField: "Idempotency-Key"))
        for method in ["GET", "PUT", "DELETE", "HEAD"] {
            var other = post
            other.httpMethod = method
            XCTAssertNil(IdempotencyKeyAdapter.keyed(other, key: id).value(forHTTPHeaderField: "Idempotency-Key"), method)
        }
    }
}
