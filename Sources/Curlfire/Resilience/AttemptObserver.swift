import Foundation
import FoundationNetworking

/// How one attempt of a request ended, as the resilience pieces see it.
struct AttemptReport: Sendable {
    /// The host (and explicit port) the attempt was sent to: ``ResilienceKey/key(for:)``.
    var host: String
    /// Whether this is the request's first attempt (not a retry) at its first hop (not a redirect).
    var isFirstAttempt: Bool
    /// The status code, when a response head arrived.
    var statusCode: Int?
    /// The error, when the attempt failed below HTTP (or was cancelled).
    var error: CurlfireError?
}

/// A retrier that wants to know how every attempt of its requests ended — successes included,
/// which retriers are never asked about. ``RetryPolicy`` (its ``RetryBudget`` counts requests) and
/// ``CircuitBreaker`` (its window counts outcomes) are; ``Interceptor`` forwards to its retriers.
protocol AttemptObserver: Sendable {
    /// Called once per attempt that reached the engine, off any lock, on the engine thread or the
    /// caller's: must be quick and must not block.
    func attemptEnded(_ report: AttemptReport, session: SessionManager)
}

extension Interceptor: AttemptObserver {
    func attemptEnded(_ report: AttemptReport, session: SessionManager) {
        for case let observer as any AttemptObserver in retriers { observer.attemptEnded(report, session: session) }
    }
}

extension Transfer {
    /// Tells the request's retriers that observe attempts how this one ended. Nothing to do (and
    /// nothing spent) when the request has no retriers.
    func reportAttempt(_ result: AttemptResult) {
        guard !definition.retriers.isEmpty else { return }
        var report: AttemptReport?
        for case let observer as any AttemptObserver in definition.retriers {
            if report == nil {
                report = AttemptReport(host: ResilienceKey.key(for: result.head.url),
                                       isFirstAttempt: result.stage.attempt == 1 && result.stage.hop == 0,
                                       statusCode: result.lazyResponse?.statusCode, error: result.error)
            }
            if let report { observer.attemptEnded(report, session: session) }
        }
    }
}

/// The key resilience state is kept under: a URL's host, lowercased, with its port when the URL
/// names one (two servers on one address are two upstreams).
enum ResilienceKey {
    /// `host` or `host:port`; empty for a URL without a host.
    static func key(for url: URL?) -> String {
        guard let url, let host = url.host?.lowercased() else { return "" }
        if let port = url.port { return "\(host):\(port)" }
        return host
    }
}
