import Foundation
import FoundationNetworking

/// A circuit breaker per host, as a ``RequestInterceptor``: when too many of a host's recent
/// requests failed, the next ones fail at once with ``CurlfireError/circuitOpen(host:)`` — nothing
/// is sent — until a cool-down has passed and a few probes succeed.
///
/// - **Closed** (the start): every request goes; the breaker keeps the outcomes of the last
///   `windowSize` attempts to the host. When the window is full and at least
///   `failureRateThreshold` of it failed, it opens.
/// - **Open**: requests fail at once, unsent, for `openDuration` seconds.
/// - **Half-open**: at most `halfOpenProbes` requests go at a time. One failure opens the breaker
///   again; `halfOpenProbes` successes close it.
///
/// An attempt fails when it ends with a transport error or a status code in
/// ``failureStatusCodes``; a cancelled one does not count. Give the breaker as an interceptor
/// (it must see how attempts end), before a ``RetryPolicy`` so that retries are held back too:
///
/// ```swift
/// let breaker = CircuitBreaker(failureRateThreshold: 0.5, windowSize: 20, openDuration: 30, halfOpenProbes: 1)
/// let session = SessionManager(interceptor: Interceptor(interceptors: [breaker, RetryPolicy()]))
/// ```
///
/// Each change of state is sent to the session's event monitors
/// (``EventMonitor/circuitBreaker(_:didTransition:)``). Hosts are told apart with their port.
public final class CircuitBreaker: RequestInterceptor, Sendable {
    /// Where a host's breaker is.
    public enum State: String, Sendable, Hashable {
        /// Requests go; outcomes are counted.
        case closed
        /// Requests fail at once, unsent.
        case open
        /// A limited number of probes go.
        case halfOpen
    }

    /// A change of state for one host.
    public struct Transition: Sendable, Hashable, CustomStringConvertible {
        /// The host (with `:port` when the URL names one).
        public let host: String
        /// The state before.
        public let from: State
        /// The state after.
        public let to: State

        /// `host: closed → open`.
        public var description: String { "\(host): \(from.rawValue) → \(to.rawValue)" }
    }

    /// 429, 500, 502, 503, 504.
    public static let defaultFailureStatusCodes: Set<Int> = [429, 500, 502, 503, 504]

    /// The share of failures in a full window that opens the breaker.
    public let failureRateThreshold: Double
    /// How many recent attempts the window holds.
    public let windowSize: Int
    /// How long the breaker stays open, in seconds.
    public let openDuration: TimeInterval
    /// How many probes go at a time while half-open, and how many must succeed to close it.
    public let halfOpenProbes: Int
    /// Status codes that count as failures.
    public let failureStatusCodes: Set<Int>

    private let hosts = LockedValue<[String: CircuitBreakerState]>([:])

    /// Creates a breaker. A threshold outside 0…1 (or not a number) is clamped (NaN: 0.5); a window
    /// or probe count below 1 counts as 1; a negative or non-finite duration as 0 and 30 seconds.
    ///
    /// - Parameters:
    ///   - failureRateThreshold: The share of failed attempts in a full window that opens the
    ///                           breaker. `0.5` by default.
    ///   - windowSize:           The attempts counted. `20` by default.
    ///   - openDuration:         Seconds the breaker stays open. `30` by default.
    ///   - halfOpenProbes:       Probes at a time while half-open, and successes needed to close.
    ///                           `1` by default.
    ///   - failureStatusCodes:   Status codes that count as failures. 429, 500, 502, 503, 504 by default.
    public init(failureRateThreshold: Double = 0.5, windowSize: Int = 20, openDuration: TimeInterval = 30,
                halfOpenProbes: Int = 1, failureStatusCodes: Set<Int> = defaultFailureStatusCodes) {
        self.failureRateThreshold = failureRateThreshold.isNaN ? 0.5 : min(max(failureRateThreshold, 0), 1)
        self.windowSize = max(1, windowSize)
        self.openDuration = openDuration.isNaN ? 30 : (openDuration.isFinite ? max(0, openDuration) : 1e9)
        self.halfOpenProbes = max(1, halfOpenProbes)
        self.failureStatusCodes = failureStatusCodes
    }

    /// The breaker's state for `host` (`host` or `host:port`, as in the URL).
    public func state(forHost host: String) -> State {
        hosts.withLock { $0[host.lowercased()]?.state } ?? .closed
    }

    /// Admits or rejects `urlRequest` without telling monitors of a change: the form used without a
    /// session. Throws ``CurlfireError/circuitOpen(host:)`` when the host's breaker is open.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        try admit(urlRequest, session: nil).get()
    }

    /// Admits `urlRequest` or fails it with ``CurlfireError/circuitOpen(host:)``, unsent; tells the
    /// session's monitors when the host's breaker changes state.
    public func adapt(_ urlRequest: URLRequest, for session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        completion(admit(urlRequest, session: session))
    }

    private func admit(_ urlRequest: URLRequest, session: SessionManager?) -> Result<URLRequest, Error> {
        let host = ResilienceKey.key(for: urlRequest.url)
        let now = RetryBudget.now()
        let (admission, change) = hosts.withLock { hosts -> (CircuitBreakerState.Admission, Transition?) in
            var state = hosts[host] ?? makeState()
            let before = state.state
            let (admission, changed) = state.admit(at: now)
            hosts[host] = state
            return (admission, changed.map { Transition(host: host, from: before, to: $0) })
        }
        if let change, let session { announce(change, to: session) }
        return admission == .reject ? .failure(CurlfireError.circuitOpen(host: host)) : .success(urlRequest)
    }

    /// The outcome an attempt counts as.
    func outcome(of report: AttemptReport) -> CircuitBreakerState.Outcome {
        switch report.error {
        case .explicitlyCancelled?, .sessionDeinitialized?: return .neutral
        case .some: return .failure
        case nil: return report.statusCode.map { failureStatusCodes.contains($0) } == true ? .failure : .success
        }
    }

    private func makeState() -> CircuitBreakerState {
        CircuitBreakerState(failureRateThreshold: failureRateThreshold, windowSize: windowSize,
                            openDuration: openDuration, halfOpenProbes: halfOpenProbes)
    }

    private func announce(_ transition: Transition, to session: SessionManager) {
        let monitors = session.eventMonitor
        guard !monitors.isEmpty else { return }
        monitors.send { $0.circuitBreaker(self, didTransition: transition) }
    }
}

extension CircuitBreaker: AttemptObserver {
    /// Counts the attempt's outcome in its host's window.
    func attemptEnded(_ report: AttemptReport, session: SessionManager) {
        let outcome = outcome(of: report)
        let now = RetryBudget.now()
        let change = hosts.withLock { hosts -> Transition? in
            guard var state = hosts[report.host] else { return nil } // never admitted here
            let before = state.state
            let changed = state.record(outcome, at: now)
            hosts[report.host] = state
            return changed.map { Transition(host: report.host, from: before, to: $0) }
        }
        if let change { announce(change, to: session) }
    }
}
