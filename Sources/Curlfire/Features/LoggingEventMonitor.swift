import Foundation
import FoundationNetworking
import Logging

/// An ``EventMonitor`` that logs each request's life through swift-log.
///
/// Curlfire logs nothing unless you attach one:
/// `SessionManager(eventMonitors: [LoggingEventMonitor(logger: logger)])`. Lifecycle events are
/// logged at `level` (`.debug` by default), failures at `.warning`. Header values of
/// `Authorization`, `Cookie` and similar are never logged: only the method and URL are, and a
/// password in the URL (`https://user:password@host/`) is written `***` unless `redactsCredentials`
/// is false.
public struct LoggingEventMonitor: EventMonitor {
    /// The logger events are written to.
    public let logger: Logger
    /// The level of lifecycle events. `.debug` by default.
    public let level: Logger.Level
    /// Where events are delivered (and logged).
    public let queue: DispatchQueue
    /// Whether a URL's password is written as `***`. `true` by default.
    public let redactsCredentials: Bool

    /// Creates a monitor writing to `logger`.
    ///
    /// - Parameters:
    ///   - logger: The logger.
    ///   - level:  The level of lifecycle events. `.debug` by default.
    ///   - queue:  Where events are logged. A new serial queue by default.
    ///   - redactsCredentials: Whether a URL's password is written as `***`. `true` by default.
    public init(logger: Logger, level: Logger.Level = .debug,
                queue: DispatchQueue = DispatchQueue(label: "org.curlfire.logging"), redactsCredentials: Bool = true) {
        self.logger = logger
        self.level = level
        self.queue = queue
        self.redactsCredentials = redactsCredentials
    }

    private func log(_ request: any Request, _ message: String, level: Logger.Level? = nil) {
        let method = request.request?.httpMethod ?? "GET"
        let url = CredentialRedaction.text(of: request.request?.url, redacted: redactsCredentials, placeholder: "<no URL>")
        logger.log(level: level ?? self.level, "\(method) \(url): \(message)")
    }

    /// Logs the event.
    public func request(_ request: any Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        log(request, "created")
    }
    /// Logs the event.
    public func request(_ request: any Request, didFailToCreateURLRequestWithError error: CurlfireError) {
        logger.log(level: .warning, "request could not be built: \(error)")
    }
    /// Logs the event.
    public func request(_ request: any Request, didFailToAdaptURLRequest initialRequest: URLRequest,
                        withError error: CurlfireError) {
        log(request, "adaptation failed: \(error)", level: .warning)
    }
    /// Logs the event.
    public func requestDidResume(_ request: any Request) { log(request, "resumed") }
    /// Logs the event.
    public func requestDidSuspend(_ request: any Request) { log(request, "suspended") }
    /// Logs the event.
    public func requestDidCancel(_ request: any Request) { log(request, "cancelled") }
    /// Logs the event.
    public func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?) {
        if let error { log(request, "attempt failed: \(error)", level: .warning) }
    }
    /// Logs the event.
    public func requestIsRetrying(_ request: any Request) {
        log(request, "retrying (retry \(request.retryCount + 1))")
    }
    /// Logs the event.
    public func request(_ request: any Request, willRetryAfter delay: TimeInterval) {
        log(request, "next attempt in \(String(format: "%.3f", delay)) s")
    }
    /// Logs the event, at `.warning` when a breaker opens.
    public func circuitBreaker(_ breaker: CircuitBreaker, didTransition transition: CircuitBreaker.Transition) {
        logger.log(level: transition.to == .open ? .warning : level, "circuit breaker \(transition)")
    }
    /// Logs the event.
    public func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) {
        log(request, "\(response.statusCode) redirects to \(CredentialRedaction.text(of: redirect.url, redacted: redactsCredentials, placeholder: "?"))")
    }
    /// Logs the event.
    public func requestDidFinish(_ request: any Request) {
        let status = request.response.map { String($0.statusCode) } ?? "no response"
        log(request, "finished (\(status))")
    }
}
