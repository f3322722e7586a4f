// Resilience: Retry-After and jitter, a retry budget per host, idempotency keys and a circuit
// breaker, each against its own MockServer so the server's count shows what was sent.
import Curlfire
import CurlfireTesting
import Foundation
import PlaygroundSupport

/// A value behind a lock, for a dispatcher (one thread per connection) and the playground.
final class Shared<Value: Sendable>: @unchecked Sendable { // guarded by `lock`
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    /// Changes the value under the lock and returns what `body` returns.
    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}

func startServer(_ dispatcher: @escaping @Sendable (RecordedRequest) -> MockResponse) -> MockServer {
    do { return try MockServer(dispatcher: dispatcher) } catch { Playground.fail("cannot start a MockServer: \(error)") }
}

func resilienceSections() async {
    let events = ClosureEventMonitor(queue: DispatchQueue(label: "resilience-monitor"))
    let delays = Recorder<TimeInterval>()
    let transitions = Recorder<String>()
    events.requestWillRetryAfter = { _, delay in delays.append(delay) }
    events.circuitBreakerDidTransition = { transitions.append($0.description) }

    // MARK: Retry-After and 429
    Playground.section("GET answered 429 with Retry-After: 1, then 200: RetryPolicy() waits what the server asked")
    let limited = Shared(0)
    let rateLimited = startServer { _ in
        let count = limited.update { count -> Int in count += 1; return count }
        return count == 1 ? MockResponse(statusCode: 429, headers: ["Retry-After": "1"]) : .text("served")
    }
    let polite = SessionManager(eventMonitors: [events], interceptor: RetryPolicy(jitter: .none))
    let started = Date()
    let served = await polite.request(rateLimited.url("/quota")).validate().serializingString().response
    events.queue.sync {}
    Playground.check(served.value == "served" && rateLimited.requestCount == 2,
                     "succeeded after \(rateLimited.requestCount) requests in \(Format.duration(Date().timeIntervalSince(started)))")
    Playground.check(delays.all == [1], "the monitor saw the delay waited: \(delays.all) s")

    Playground.section("Full jitter (the default): 10 requests failing together retry apart")
    let jitterDelays = Recorder<TimeInterval>()
    let jitterEvents = ClosureEventMonitor(queue: DispatchQueue(label: "jitter-monitor"))
    jitterEvents.requestWillRetryAfter = { _, delay in jitterDelays.append(delay) }
    let down = startServer { _ in MockResponse(statusCode: 503) }
    let jittered = SessionManager(eventMonitors: [jitterEvents], interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.2))
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<10 { group.addTask { _ = await jittered.request(down.url("/j/\(index)")).serializingData().response } }
    }
    jitterEvents.queue.sync {}
    let spread = jitterDelays.all.sorted().map { Format.duration($0) }.joined(separator: ", ")
    Playground.check(jitterDelays.all.count == 10 && jitterDelays.all.allSatisfy { $0 <= 0.2 }, "delays within the 0.2 s backoff: \(spread)")

    // MARK: Retry budget
    Playground.section("RetryBudget(ratio: 0.1, minimumPerSecond: 1): 100 requests to a host failing every one")
    let budget = RetryBudget(ratio: 0.1, minimumPerSecond: 1)
    let failing = startServer { _ in MockResponse(statusCode: 503) }
    let budgeted = SessionManager(interceptor: RetryPolicy(retryLimit: 3, exponentialBackoffScale: 0.001, budget: budget))
    let failures = Shared(0)
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<100 {
            group.addTask {
                let response = await budgeted.request(failing.url("/b/\(index)")).validate().serializingData().response
                if response.error?.responseCode == 503 { failures.update { $0 += 1 } }
            }
        }
    }
    let summary = budget.summary(forHost: "127.0.0.1:\(failing.port)")
    let retries = failing.requestCount - 100
    Playground.note("without a budget: 300 retries; with it: \(retries) sent, \(summary.retriesRefused) refused")
    Playground.check(retries <= 10 + 10 && retries == summary.retriesGranted,
                     "retries sent \(retries) ≤ budget 10 + 0.1 × 100")
    Playground.check(failures.value == 100, "all 100 requests ended with their own 503, none lost")

    // MARK: Idempotency keys
    Playground.section("POST with IdempotencyKeyAdapter: retried, one key for every attempt")
    let keys = Recorder<String>()
    let attempts = Shared(0)
    let payments = startServer { request in
        keys.append(request.header("Idempotency-Key") ?? "none")
        let attempt = attempts.update { count -> Int in count += 1; return count }
        return attempt < 3 ? MockResponse(statusCode: 503) : .text("charged once")
    }
    let keyed = SessionManager(interceptor: Interceptor(adapters: [IdempotencyKeyAdapter()],
                                                        retriers: [RetryPolicy(exponentialBackoffScale: 0.01)]))
    let charge = await keyed.request(payments.url("/charge"), method: .post).validate().serializingString().response
    Playground.check(charge.value == "charged once" && Set(keys.all).count == 1 && keys.all.count == 3,
                     "3 attempts, all with Idempotency-Key \(keys.all.first ?? "none")")

    // MARK: Circuit breaker
    Playground.section("CircuitBreaker(failureRateThreshold: 0.5, windowSize: 4, openDuration: 0.5, halfOpenProbes: 1)")
    let healthy = Shared(false)
    let flaky = startServer { _ in healthy.value ? .text("up") : MockResponse(statusCode: 503) }
    let breaker = CircuitBreaker(failureRateThreshold: 0.5, windowSize: 4, openDuration: 0.5, halfOpenProbes: 1)
    let guarded = SessionManager(eventMonitors: [events], interceptor: breaker)
    var outcomes: [String] = []
    for _ in 0..<8 {
        let response = await guarded.request(flaky.url("/up")).validate().serializingData().response
        if case .circuitOpen? = response.error { outcomes.append("open") } else { outcomes.append("\(response.response?.statusCode ?? 0)") }
    }
    Playground.check(flaky.requestCount == 4, "8 requests, \(flaky.requestCount) sent: \(outcomes.joined(separator: " "))")
    try? await Task.sleep(nanoseconds: 600_000_000)
    healthy.value = true
    let probe = await guarded.request(flaky.url("/up")).validate().serializingString().response
    events.queue.sync {}
    Playground.check(probe.value == "up", "after the cool-down a probe went through and succeeded")
    Playground.check(transitions.all.count == 3, "transitions: \(transitions.all.joined(separator: "; "))")
    Playground.note("while open, requests fail with: \(CurlfireError.circuitOpen(host: "127.0.0.1:\(flaky.port)"))")

    // MARK: Reachability and OfflineRetrier
    Playground.section("NetworkReachabilityManager: a listening manager posts Reachability.DidChange")
    let loopback = NetworkReachabilityManager(host: "127.0.0.1")
    let statuses = Recorder<NetworkReachabilityManager.NetworkReachabilityStatus>()
    let observer = NotificationCenter.default.addObserver(forName: Notification.Name.Reachability.DidChange,
                                                          object: loopback, queue: nil) { note in
        if let status = note.userInfo?[Notification.Key.ReachabilityStatus] as? NetworkReachabilityManager.NetworkReachabilityStatus {
            statuses.append(status)
        }
    }
    Playground.check(loopback?.startListening() == true, "listening to netlink for 127.0.0.1")
    for _ in 0..<50 where statuses.all.isEmpty { try? await Task.sleep(nanoseconds: 20_000_000) }
    loopback?.stopListening()
    NotificationCenter.default.removeObserver(observer)
    Playground.check(statuses.all.first == .reachable(.ethernetOrWiFi), "notified: reachable over ethernet or Wi-Fi")
    let general = NetworkReachabilityManager.shared.isReachable ? "reachable" : "not reachable"
    Playground.note("NetworkReachabilityManager.shared (the network in general, a default route) says: \(general)")

    Playground.section("OfflineRetrier(maximumWait: 30): a refused connection with the network up is not its business")
    let gone = startServer { _ in .text("") }
    let closedPort = gone.port
    gone.shutdown()
    let offline = SessionManager(interceptor: OfflineRetrier(maximumWait: 30))
    let refusedAt = Date()
    let refused = await offline.request("http://127.0.0.1:\(closedPort)/").serializingData().response
    Playground.check(refused.error?.transportErrorCode == .cannotConnect && Date().timeIntervalSince(refusedAt) < 5,
                     "ended at once with \(refused.error.map { "\($0)" } ?? "no error") (the waiting case runs in a network namespace: OfflineRetrierTests)")

    // MARK: Coalescing
    Playground.section("coalescesIdenticalRequests: 100 concurrent identical GETs, one request at the server")
    let slow = startServer { _ in .text("one answer for all").delayed(by: 0.3) }
    var coalescing = SessionConfiguration.default
    coalescing.coalescesIdenticalRequests = true
    let single = SessionManager(configuration: coalescing)
    let answers = await withTaskGroup(of: String?.self) { group in
        for _ in 0..<100 { group.addTask { await single.request(slow.url("/popular")).validate().serializingString().response.value } }
        var all: [String?] = []
        for await answer in group { all.append(answer) }
        return all
    }
    Playground.check(answers.filter { $0 == "one answer for all" }.count == 100 && slow.requestCount == 1,
                     "\(answers.count) responses from \(slow.requestCount) request")
}
