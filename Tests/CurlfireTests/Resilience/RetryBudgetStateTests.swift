@testable import Curlfire
import Foundation
import XCTest

/// A host's retry budget as a table of (time, event) → answer and balance; no network, no clock.
final class RetryBudgetStateTests: XCTestCase {
    enum Event { case request, retry }

    func testThatTheBudgetTableHolds() {
        // ratio 0.5, floor 1/s over a 10 s window: 10 retries free, one more per two requests.
        var state = RetryBudgetState(ratio: 0.5, minimumPerSecond: 1, window: 10)
        let rows: [(time: TimeInterval, event: Event, granted: Bool?, balance: Double)] = [
            (100.0, .retry, true, 9),
            (100.1, .request, nil, 9.5),
            (100.2, .request, nil, 10),
        ] + (0..<10).map { (100.3, .retry, true, Double(9 - $0)) } + [
            (100.4, .retry, false, 0),        // spent: refused, nothing withdrawn
            (100.5, .request, nil, 0.5),
            (100.6, .retry, false, 0.5),      // half a retry is not one
            (100.7, .request, nil, 1),
            (100.8, .retry, true, 0),
            (111.0, .retry, true, 9),         // 10 s later the old slots no longer count
        ]
        for (index, row) in rows.enumerated() {
            switch row.event {
            case .request:
                state.deposit(at: row.time)
            case .retry:
                XCTAssertEqual(state.withdraw(at: row.time), row.granted, "row \(index)")
            }
            XCTAssertEqual(state.balance(at: row.time), row.balance, accuracy: 1e-9, "row \(index)")
        }
        XCTAssertEqual(state.requests, 4)
        XCTAssertEqual(state.retriesGranted, 13)
        XCTAssertEqual(state.retriesRefused, 2)
    }

    func testThatUnderAFailingUpstreamRetriesStayWithinRatioTimesRequestsPlusTheFloor() {
        // 1,000 requests over 5 s, each failing and wanting 3 retries: without a budget 3,000 retries.
        var state = RetryBudgetState(ratio: 0.1, minimumPerSecond: 2, window: 10)
        var granted = 0
        for index in 0..<1_000 {
            let now = 50 + Double(index) * 0.005
            state.deposit(at: now)
            for _ in 0..<3 where state.withdraw(at: now) { granted += 1 }
        }
        XCTAssertLessThanOrEqual(granted, 100 + 20, "ratio × requests + floor × window")
        XCTAssertGreaterThanOrEqual(granted, 100 + 20 - 1)
    }

    func testThatBadParametersAreClamped() {
        let budget = RetryBudget(ratio: -.infinity, minimumPerSecond: -4, window: .nan)
        XCTAssertEqual(budget.ratio, 0)
        XCTAssertEqual(budget.minimumPerSecond, 0)
        XCTAssertEqual(budget.window, 10)
        XCTAssertFalse(budget.withdraw(host: "h"), "no floor, no requests: nothing to spend")
        XCTAssertEqual(budget.summary(forHost: "h").retriesRefused, 1)
        let defaults = RetryBudget()
        XCTAssertEqual(defaults.ratio, 0.2)
        XCTAssertEqual(defaults.minimumPerSecond, 10)
    }

    func testThatHostsHaveTheirOwnBudgets() {
        let budget = RetryBudget(ratio: 1, minimumPerSecond: 0)
        budget.deposit(host: "a:1")
        XCTAssertTrue(budget.withdraw(host: "a:1"))
        XCTAssertFalse(budget.withdraw(host: "a:1"))
        XCTAssertFalse(budget.withdraw(host: "a:2"), "another port is another upstream")
        XCTAssertEqual(ResilienceKey.key(for: URL(string: "http://Example.COM:8080/x")), "example.com:8080")
        XCTAssertEqual(ResilienceKey.key(for: URL(string: "https://example.com/x")), "example.com")
        XCTAssertEqual(ResilienceKey.key(for: nil), "")
    }
}
