import Foundation

/// A limit on retries across requests, per host: a token bucket as in gRPC's retry throttling and
/// Finagle's `RetryBudget`. Give it to ``RetryPolicy/init(retryLimit:exponentialBackoffBase:exponentialBackoffScale:retryableHTTPMethods:retryableHTTPStatusCodes:retryableTransportErrorCodes:maximumRetryAfter:jitter:budget:)``.
///
/// Over any `window` (10 seconds by default), a host gets at most
/// `minimumPerSecond × window + ratio × requests` retries, where `requests` counts the requests
/// (first attempts) sent to it in that window. When an upstream fails every request, retries then
/// add at most `ratio` to its load instead of multiplying it by `retryLimit + 1`; once the budget
/// is spent, a failed request is not retried and ends at once with its own error.
///
/// A budget counts the requests of the policy it is given to: give the policy to the session or
/// request as an interceptor or retrier. Share one budget between policies to share the limit.
/// Hosts are told apart with their port (`127.0.0.1:8080` and `127.0.0.1:8081` are two budgets).
public final class RetryBudget: Sendable {
    /// Retries each request earns: `0.2` (one retry per five requests) by default.
    public let ratio: Double
    /// Retries allowed per second whatever the traffic: `10` by default.
    public let minimumPerSecond: Int
    /// The span over which requests and retries are counted, in seconds: `10` by default.
    public let window: TimeInterval

    /// What a budget did for one host since it was created.
    public struct Summary: Sendable, Equatable {
        /// Requests (first attempts) counted.
        public let requests: Int
        /// Retries the budget allowed.
        public let retriesGranted: Int
        /// Retries it refused.
        public let retriesRefused: Int
        /// The retries left now.
        public let balance: Double
    }

    private let hosts = LockedValue<[String: RetryBudgetState]>([:])

    /// Creates a budget. A negative or non-finite `ratio` counts as 0, a negative `minimumPerSecond`
    /// as 0, and a `window` that is not a positive finite number as 10 seconds.
    ///
    /// - Parameters:
    ///   - ratio:            Retries each request earns. `0.2` by default.
    ///   - minimumPerSecond: Retries allowed per second with no traffic at all. `10` by default.
    ///   - window:           The span counted, in seconds. `10` by default.
    public init(ratio: Double = 0.2, minimumPerSecond: Int = 10, window: TimeInterval = 10) {
        self.ratio = ratio.isFinite ? max(0, ratio) : 0
        self.minimumPerSecond = max(0, minimumPerSecond)
        self.window = window.isFinite && window > 0 ? window : 10
    }

    /// What the budget counted for `host` (a URL's host, with `:port` when the URL names one).
    public func summary(forHost host: String) -> Summary {
        let now = Self.now()
        return hosts.withLock { hosts in
            let state = hosts[host.lowercased()] ?? makeState()
            return Summary(requests: state.requests, retriesGranted: state.retriesGranted,
                           retriesRefused: state.retriesRefused, balance: state.balance(at: now))
        }
    }

    /// Counts a request sent to `host`.
    func deposit(host: String) {
        let now = Self.now()
        hosts.withLock { hosts in hosts[host, default: makeState()].deposit(at: now) }
    }

    /// Spends a retry for `host`; `false` when the budget is spent.
    func withdraw(host: String) -> Bool {
        let now = Self.now()
        return hosts.withLock { hosts in hosts[host, default: makeState()].withdraw(at: now) }
    }

    private func makeState() -> RetryBudgetState {
        RetryBudgetState(ratio: ratio, minimumPerSecond: minimumPerSecond, window: window)
    }

    /// Seconds on a monotonic clock.
    static func now() -> TimeInterval { TimeInterval(IdleClock.now()) / 1e9 }
}
