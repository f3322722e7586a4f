import Foundation
import FoundationNetworking

/// Observes the life of a session's requests: creation, adaptation, resume, suspend, cancel,
/// retries, redirects, completion and serialization.
///
/// Attach monitors with ``SessionManager/init(configuration:serverTrustPolicyManager:callbackQueue:eventMonitors:cachedResponseHandler:interceptor:serializationQueue:)``.
/// Each event is delivered on the monitor's ``queue``, never on the engine thread, in the order the
/// events happened for a given request — except ``requestWasCreated(_:)``, which is called at once
/// on the thread creating the request. Every method has an empty default implementation:
/// implement the ones you need. ``Request/id`` tells requests apart across events.
public protocol EventMonitor: Sendable {
    /// Where this monitor's events are delivered. A shared serial queue by default.
    var queue: DispatchQueue { get }

    /// A request value with a new transfer was created — by `request(…)`, `download(…)`,
    /// `upload(…)`, `streamRequest(…)`, or a modifier that changes what is sent — and has not
    /// started. Once per transfer.
    ///
    /// Unlike every other event this one is not sent to ``queue``: it is called synchronously on
    /// the thread (and in the task) that creates the request, before the creating method returns,
    /// so it sees that task's task-local values — a tracing `ServiceContext`, say. Keep it short and
    /// do not block. A request created by a modifier may never start (the original it replaced
    /// never does).
    func requestWasCreated(_ request: any Request)

    /// The request started and its `URLRequest` was built (before adapters). Once per request.
    func request(_ request: any Request, didCreateInitialURLRequest urlRequest: URLRequest)
    /// The request could not be built (invalid URL, encoding failure). Once per request.
    func request(_ request: any Request, didFailToCreateURLRequestWithError error: CurlfireError)
    /// The adapters turned `initialRequest` into `adaptedRequest`, before an attempt.
    func request(_ request: any Request, didAdaptInitialRequest initialRequest: URLRequest,
                 to adaptedRequest: URLRequest)
    /// An adapter failed, before an attempt.
    func request(_ request: any Request, didFailToAdaptURLRequest initialRequest: URLRequest,
                 withError error: CurlfireError)
    /// The request started, or continued after `suspend()`.
    func requestDidResume(_ request: any Request)
    /// The request was suspended.
    func requestDidSuspend(_ request: any Request)
    /// The request was cancelled (once, at the first `cancel()`).
    func requestDidCancel(_ request: any Request)
    /// An attempt finished, with libcurl's measurements.
    func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics)
    /// An attempt finished, with its error if it failed below HTTP.
    func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?)
    /// A retrier decided to retry; the next attempt follows (after the retrier's delay).
    func requestIsRetrying(_ request: any Request)
    /// A retry was decided: the next attempt starts after `delay` seconds, the delay actually
    /// waited (a ``RetryPolicy``'s backoff with its jitter, or the server's `Retry-After`).
    /// Sent right after ``requestIsRetrying(_:)``.
    func request(_ request: any Request, willRetryAfter delay: TimeInterval)
    /// A ``CircuitBreaker`` used by a request of this session changed state for a host.
    func circuitBreaker(_ breaker: CircuitBreaker, didTransition transition: CircuitBreaker.Transition)
    /// A redirect is followed by hand (a ``RedirectHandler`` other than ``Redirector/follow``).
    func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse)
    /// The request is finished: no more attempts. Once per request.
    func requestDidFinish(_ request: any Request)
    /// A response handler produced its response (validators and serializer applied).
    func request<Value>(_ request: any Request, didParseResponse response: DataResponse<Value>)
    /// A `response(queue:completionHandler:)` handler produced its unserialized response.
    func request(_ request: any Request, didParseResponse response: DefaultDataResponse)

    // MARK: Integrations (EventMonitor+LiveEvents.swift has the defaults)

    /// An adapter this monitor adds to every request of its session, run after the session's
    /// ``SessionManager/adapter`` and ``SessionManager/interceptor`` (a tracing monitor injects its
    /// trace context here). `nil` by default. Read once, when the session is created.
    var requestAdapter: (any RequestAdapter)? { get }
    /// Whether responses wait for this monitor: when `true`, no response handler runs and no `await`
    /// returns before this monitor's ``requestDidFinish(_:)`` has returned on its ``queue`` (a
    /// tracing span has ended, a duration is recorded). `false` by default. Read once, when the
    /// session is created.
    var finishesBeforeDelivery: Bool { get }
    /// Whether this monitor receives the live events: ``request(_:didReachPhase:)``,
    /// ``connectionPoolDidChange(_:)`` and ``connectionDidClose(_:)``. `false` by default: a
    /// session with no such monitor installs none of the libcurl callbacks behind them. Read once,
    /// when the session is created.
    var receivesLiveEvents: Bool { get }
    /// A phase of the request's attempt happened (DNS, connect, TLS, connection, headers, first
    /// byte), sent while the attempt runs. Only with ``receivesLiveEvents``.
    func request(_ request: any Request, didReachPhase event: PhaseEvent)
    /// The session's connection pool changed (a connection opened, closed, was taken or handed
    /// back, or a request started waiting). Only with ``receivesLiveEvents``.
    func connectionPoolDidChange(_ statistics: ConnectionPoolStatistics)
    /// A connection of the session closed. Only with ``receivesLiveEvents``.
    func connectionDidClose(_ connection: ClosedConnection)
}

/// The queue monitors use unless they choose one.
let defaultEventMonitorQueue = DispatchQueue(label: "org.curlfire.eventMonitor")

extension EventMonitor {
    /// A shared serial queue.
    public var queue: DispatchQueue { defaultEventMonitorQueue }
    /// Does nothing.
    public func requestWasCreated(_ request: any Request) {}
    /// Does nothing.
    public func request(_ request: any Request, didCreateInitialURLRequest urlRequest: URLRequest) {}
    /// Does nothing.
    public func request(_ request: any Request, didFailToCreateURLRequestWithError error: CurlfireError) {}
    /// Does nothing.
    public func request(_ request: any Request, didAdaptInitialRequest initialRequest: URLRequest,
                        to adaptedRequest: URLRequest) {}
    /// Does nothing.
    public func request(_ request: any Request, didFailToAdaptURLRequest initialRequest: URLRequest,
                        withError error: CurlfireError) {}
    /// Does nothing.
    public func requestDidResume(_ request: any Request) {}
    /// Does nothing.
    public func requestDidSuspend(_ request: any Request) {}
    /// Does nothing.
    public func requestDidCancel(_ request: any Request) {}
    /// Does nothing.
    public func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) {}
    /// Does nothing.
    public func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?) {}
    /// Does nothing.
    public func requestIsRetrying(_ request: any Request) {}
    /// Does nothing.
    public func request(_ request: any Request, willRetryAfter delay: TimeInterval) {}
    /// Does nothing.
    public func circuitBreaker(_ breaker: CircuitBreaker, didTransition transition: CircuitBreaker.Transition) {}
    /// Does nothing.
    public func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) {}
    /// Does nothing.
    public func requestDidFinish(_ request: any Request) {}
    /// Does nothing.
    public func request<Value>(_ request: any Request, didParseResponse response: DataResponse<Value>) {}
    /// Does nothing.
    public func request(_ request: any Request, didParseResponse response: DefaultDataResponse) {}
}
