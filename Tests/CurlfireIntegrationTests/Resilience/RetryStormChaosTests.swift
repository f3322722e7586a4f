import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// A 429/503 storm (`make chaos`: 5,000 requests; `make chaos-ci`: 2,000): an upstream that fails
/// half of its requests — 429 with `Retry-After: 0` or 503 with `Retry-After: 1`, chosen by a seeded
/// mix — behind a session with a ``CircuitBreaker`` and a ``RetryPolicy`` with a ``RetryBudget``,
/// sent at 1,000 a second with at most 200 in flight. Every request must end exactly once, with the upstream's 200, its own
/// 429/503 (limit or budget reached) or `circuitOpen`; retries sent are counted at the server and
/// reported against the budget, with the breaker's transitions. An allow-listed skip unless
/// CURLFIRE_CHAOS_STORM_REQUESTS (or CURLFIRE_CHAOS_REQUESTS) is set.
final class RetryStormChaosTests: XCTestCase {
    static let inFlight = 200
    static let rate = 1_000.0

    /// Deliveries per request, behind a lock.
    final class Deliveries: @unchecked Sendable { // guarded by `lock`
        private let lock = NSLock()
        private var counts: [Int]
        private var outcomes: [String: Int] = [:]
        init(_ count: Int) { counts = Array(repeating: 0, count: count) }
        func deliver(_ index: Int, outcome: String) {
            lock.withLock {
                counts[index] += 1
                outcomes[outcome, default: 0] += 1
            }
        }
        var all: [Int] { lock.withLock { counts } }
        var summary: [String: Int] { lock.withLock { outcomes } }
    }

    func testThatAStormIsBoundedByTheBudgetAndLosesNoRequest() throws {
        let environment = ProcessInfo.processInfo.environment
        let total: Int
        if let value = environment["CURLFIRE_CHAOS_STORM_REQUESTS"].flatMap(Int.init), value > 0 {
            total = value
        } else if let value = environment["CURLFIRE_CHAOS_REQUESTS"].flatMap(Int.init), value > 0 {
            total = min(5_000, value)
        } else {
            throw XCTSkip("429/503 storm: runs with make chaos / make chaos-ci (CURLFIRE_CHAOS_STORM_REQUESTS=N)")
        }
        let seed = environment["CURLFIRE_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let counter = Counter()
        let upstream = try MockServer(dispatcher: { request in
            let index = counter.next()
            var mix = seed &+ UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15 // SplitMix64 of the index
            mix = (mix ^ (mix >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mix = (mix ^ (mix >> 27)) &* 0x94D0_49BB_1331_11EB
            mix ^= mix >> 31
            switch (mix >> 32) % 4 {
            case 0: return MockResponse(statusCode: 429, headers: ["Retry-After": "0"])
            case 1: return MockResponse(statusCode: 503, headers: ["Retry-After": "1"])
            default: return .text("ok \(request.path)")
            }
        })
        let budget = RetryBudget()
        // Half the attempts fail: a window of 30 reaches 70% now and then, so the breaker trips a few times.
        let breaker = CircuitBreaker(failureRateThreshold: 0.7, windowSize: 30, openDuration: 0.2, halfOpenProbes: 1)
        let transitions = LockedList<String>()
        let monitor = ClosureEventMonitor()
        monitor.circuitBreakerDidTransition = { transitions.append("\($0.from.rawValue)→\($0.to.rawValue)") }
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForResource = 30
        let session = SessionManager(configuration: configuration, eventMonitors: [monitor], interceptor: Interceptor(
            interceptors: [breaker, RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.05, budget: budget)]))

        let deliveries = Deliveries(total)
        let window = DispatchSemaphore(value: Self.inFlight)
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "storm-handlers", attributes: .concurrent)
        let started = Date()
        for index in 0..<total {
            // Paced at `rate` requests per second, as traffic arrives, at most `inFlight` at a time.
            let due = Double(index) / Self.rate - Date().timeIntervalSince(started)
            if due > 0 { Thread.sleep(forTimeInterval: due) }
            window.wait()
            group.enter()
            session.request(upstream.url("/storm/\(index)")).validate().responseString(queue: queue) { response in
                let outcome: String
                switch response.result {
                case let .success(text): outcome = text == "ok /storm/\(index)" ? "200" : "wrong body"
                case let .failure(.circuitOpen(host)): outcome = host.hasPrefix("127.0.0.1:") ? "circuitOpen" : "wrong host"
                case let .failure(error): outcome = error.responseCode.map { "\($0)" } ?? "\(error)"
                }
                deliveries.deliver(index, outcome: outcome)
                window.signal()
                group.leave()
            }
        }
        let finished = group.wait(timeout: .now() + 120)
        let seconds = Date().timeIntervalSince(started)
        monitor.queue.sync {}
        let counts = deliveries.all
        let lost = counts.filter { $0 == 0 }.count
        let twice = counts.filter { $0 > 1 }.count
        let host = "127.0.0.1:\(upstream.port)"
        let spent = budget.summary(forHost: host)
        let sent = upstream.requestCount
        let outcomes = deliveries.summary
        let firstAttemptsSent = spent.requests
        let retriesSent = sent - firstAttemptsSent
        // Each window of 10 s allows floor × window + ratio × its requests; the run spans ⌈seconds / 9⌉ + 1
        // windows at most (the budget's slots cover 9 to 10 s).
        let windows: Double = (seconds / (budget.window * 0.9)).rounded(.up) + 1
        let floorRetries: Double = Double(budget.minimumPerSecond) * budget.window * windows
        let earnedRetries: Double = budget.ratio * Double(firstAttemptsSent) * 2
        let bound: Double = floorRetries + earnedRetries
        let flips = transitions.all
        var byKind: [String: Int] = [:]
        for flip in flips { byKind[flip, default: 0] += 1 }
        let tallied = byKind.keys.sorted().map { "\($0) \(byKind[$0] ?? 0)" }.joined(separator: ", ")
        let outcomeList = outcomes.keys.sorted().map { "\($0) \(outcomes[$0] ?? 0)" }.joined(separator: ", ")
        print([
            String(format: "RetryStormChaosTests: %d requests, paced at %.0f/s, ≤ %d in flight, seed %llu, %.1f s (%.0f req/s)",
                   total, Self.rate, Self.inFlight, seed, seconds, Double(total) / seconds),
            "RetryStormChaosTests: sent to the upstream \(sent): \(firstAttemptsSent) first attempts, \(retriesSent) retries "
                + "(granted \(spent.retriesGranted), refused \(spent.retriesRefused); the limit alone ≈ \(Int(Double(firstAttemptsSent) * 0.875)))",
            String(format: "RetryStormChaosTests: retries / requests %.3f (budget ratio %.1f + %d/s floor; bound %.0f)",
                   Double(retriesSent) / Double(max(1, firstAttemptsSent)), budget.ratio, budget.minimumPerSecond, bound),
            "RetryStormChaosTests: outcomes \(outcomeList)",
            "RetryStormChaosTests: lost \(lost), delivered twice \(twice)",
            "RetryStormChaosTests: breaker transitions \(flips.count): \(tallied)",
        ].joined(separator: "\n"))
        XCTAssertEqual(finished, .success, "\(lost) requests never ended")
        XCTAssertEqual(lost, 0)
        XCTAssertEqual(twice, 0)
        XCTAssertEqual(Set(outcomes.keys).subtracting(["200", "429", "503", "circuitOpen"]), [], "\(outcomes)")
        XCTAssertLessThanOrEqual(retriesSent, spent.retriesGranted, "no retry went out without the budget's grant")
        XCTAssertLessThanOrEqual(Double(spent.retriesGranted), bound)
        let openings = (byKind["closed→open"] ?? 0) + (byKind["halfOpen→open"] ?? 0)
        let stillOpen = breaker.state(forHost: host) == .open ? 1 : 0
        XCTAssertEqual(openings, (byKind["open→halfOpen"] ?? 0) + stillOpen,
                       "every opening is followed by a half-open (or is the current state): \(tallied)")
    }
}

/// A counter for a dispatcher that runs on several threads.
final class Counter: @unchecked Sendable { // guarded by `lock`
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

/// A list appended to from any thread.
final class LockedList<Element: Sendable>: @unchecked Sendable { // guarded by `lock`
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
}
