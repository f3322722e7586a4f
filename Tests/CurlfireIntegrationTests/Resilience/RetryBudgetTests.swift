import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `RetryBudget` against an upstream that fails every request, counted at the server.
final class RetryBudgetTests: XCTestCase {
    func testThatRetriesStayWithinTheBudgetAndRequestsFailFastWithTheirOwnError() async throws {
        let server = try MockServer(dispatcher: { _ in MockResponse(statusCode: 503) })
        let budget = RetryBudget(ratio: 0.1, minimumPerSecond: 1)
        let policy = RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.001, budget: budget)
        let session = SessionManager(interceptor: policy)
        let requests = 150
        let statuses = Recorder<Int>()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<requests {
                group.addTask {
                    let response = await session.request(server.url("/down/\(index)")).validate().serializingData().response
                    statuses.append(response.error?.responseCode ?? -1)
                }
            }
        }
        let host = "127.0.0.1:\(server.port)"
        let summary = budget.summary(forHost: host)
        let retries = server.requestCount - requests
        // Without the budget: 150 × 3 = 450 retries. With it: ≤ floor × window + ratio × requests.
        XCTAssertLessThanOrEqual(retries, 10 + 15, "retries sent: \(retries)")
        XCTAssertGreaterThan(retries, 0, "the budget allows some")
        XCTAssertEqual(summary.retriesGranted, retries, "every retry granted was sent, and only those")
        XCTAssertEqual(summary.requests, requests)
        XCTAssertGreaterThan(summary.retriesRefused, 0)
        XCTAssertEqual(statuses.all.count, requests, "no request lost")
        XCTAssertTrue(statuses.all.allSatisfy { $0 == 503 }, "each ends with its own 503")
        print("RetryBudgetTests: \(requests) requests, \(retries) retries sent (budget 10 + 0.1 × \(requests)), "
              + "\(summary.retriesRefused) refused")
    }

    func testThatWithoutABudgetEveryRetryIsSent() async throws {
        let server = try MockServer(dispatcher: { _ in MockResponse(statusCode: 503) })
        let session = SessionManager(interceptor: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.001))
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask { _ = await session.request(server.url("/down/\(index)")).serializingData().response }
            }
        }
        XCTAssertEqual(server.requestCount, 30 * 4, "the control: the limit alone multiplies the load by 4")
    }
}
