import Foundation
import FoundationNetworking

/// A monitor from closures, for tests and quick instrumentation: each closure is optional.
///
/// The closures may be set at any time, also while the session runs requests: they are kept behind a
/// lock, and each event reads the closure it calls under it (then calls it outside the lock).
public final class ClosureEventMonitor: EventMonitor, Sendable {
    /// Where events are delivered.
    public let queue: DispatchQueue

    /// The closures, behind one lock: set from any thread, read on the monitor queue.
    private struct Closures {
        var requestWasCreated: (@Sendable (any Request) -> Void)?
        var requestDidCreateInitialURLRequest: (@Sendable (any Request, URLRequest) -> Void)?
        var requestDidAdapt: (@Sendable (any Request, URLRequest, URLRequest) -> Void)?
        var requestDidFailToAdapt: (@Sendable (any Request, URLRequest, CurlfireError) -> Void)?
        var requestDidResume: (@Sendable (any Request) -> Void)?
        var requestDidSuspend: (@Sendable (any Request) -> Void)?
        var requestDidCancel: (@Sendable (any Request) -> Void)?
        var requestDidGatherMetrics: (@Sendable (any Request, TransferMetrics) -> Void)?
        var requestDidCompleteAttempt: (@Sendable (any Request, CurlfireError?) -> Void)?
        var requestIsRetrying: (@Sendable (any Request) -> Void)?
        var requestWillRetryAfter: (@Sendable (any Request, TimeInterval) -> Void)?
        var circuitBreakerDidTransition: (@Sendable (CircuitBreaker.Transition) -> Void)?
        var requestWillRedirect: (@Sendable (any Request, URLRequest, HTTPURLResponse) -> Void)?
        var requestDidFinish: (@Sendable (any Request) -> Void)?
        var requestDidParseResponse: (@Sendable (any Request, CurlfireError?) -> Void)?
    }
    private let closures = LockedValue(Closures())

    /// Called for ``EventMonitor/requestWasCreated(_:)``, synchronously on the creating thread.
    public var requestWasCreated: (@Sendable (any Request) -> Void)? {
        get { closures.withLock { $0.requestWasCreated } }
        set { closures.withLock { $0.requestWasCreated = newValue } }
    }
    /// Called for ``EventMonitor/request(_:didCreateInitialURLRequest:)``.
    public var requestDidCreateInitialURLRequest: (@Sendable (any Request, URLRequest) -> Void)? {
        get { closures.withLock { $0.requestDidCreateInitialURLRequest } }
        set { closures.withLock { $0.requestDidCreateInitialURLRequest = newValue } }
    }
    /// Called for ``EventMonitor/request(_:didAdaptInitialRequest:to:)``.
    public var requestDidAdapt: (@Sendable (any Request, URLRequest, URLRequest) -> Void)? {
        get { closures.withLock { $0.requestDidAdapt } }
        set { closures.withLock { $0.requestDidAdapt = newValue } }
    }
    /// Called for ``EventMonitor/request(_:didFailToAdaptURLRequest:withError:)``.
    public var requestDidFailToAdapt: (@Sendable (any Request, URLRequest, CurlfireError) -> Void)? {
        get { closures.withLock { $0.requestDidFailToAdapt } }
        set { closures.withLock { $0.requestDidFailToAdapt = newValue } }
    }
    /// Called for ``EventMonitor/requestDidResume(_:)``.
    public var requestDidResume: (@Sendable (any Request) -> Void)? {
        get { closures.withLock { $0.requestDidResume } }
        set { closures.withLock { $0.requestDidResume = newValue } }
    }
    /// Called for ``EventMonitor/requestDidSuspend(_:)``.
    public var requestDidSuspend: (@Sendable (any Request) -> Void)? {
        get { closures.withLock { $0.requestDidSuspend } }
        set { closures.withLock { $0.requestDidSuspend = newValue } }
    }
    /// Called for ``EventMonitor/requestDidCancel(_:)``.
    public var requestDidCancel: (@Sendable (any Request) -> Void)? {
        get { closures.withLock { $0.requestDidCancel } }
        set { closures.withLock { $0.requestDidCancel = newValue } }
    }
    /// Called for ``EventMonitor/request(_:didGatherMetrics:)``.
    public var requestDidGatherMetrics: (@Sendable (any Request, TransferMetrics) -> Void)? {
        get { closures.withLock { $0.requestDidGatherMetrics } }
        set { closures.withLock { $0.requestDidGatherMetrics = newValue } }
    }
    /// Called for ``EventMonitor/request(_:didCompleteAttemptWith:)``.
    public var requestDidCompleteAttempt: (@Sendable (any Request, CurlfireError?) -> Void)? {
        get { closures.withLock { $0.requestDidCompleteAttempt } }
        set { closures.withLock { $0.requestDidCompleteAttempt = newValue } }
    }
    /// Called for ``EventMonitor/requestIsRetrying(_:)``.
    public var requestIsRetrying: (@Sendable (any Request) -> Void)? {
        get { closures.withLock { $0.requestIsRetrying } }
        set { closures.withLock { $0.requestIsRetrying = newValue } }
    }
    /// Called for ``EventMonitor/request(_:willRetryAfter:)``.
    public var requestWillRetryAfter: (@Sendable (any Request, TimeInterval) -> Void)? {
        get { closures.withLock { $0.requestWillRetryAfter } }
        set { closures.withLock { $0.requestWillRetryAfter = newValue } }
    }
    /// Called for ``EventMonitor/circuitBreaker(_:didTransition:)``.
    public var circuitBreakerDidTransition: (@Sendable (CircuitBreaker.Transition) -> Void)? {
        get { closures.withLock { $0.circuitBreakerDidTransition } }
        set { closures.withLock { $0.circuitBreakerDidTransition = newValue } }
    }
    /// Called for ``EventMonitor/request(_:willRedirectTo:for:)``.
    public var requestWillRedirect: (@Sendable (any Request, URLRequest, HTTPURLResponse) -> Void)? {
        get { closures.withLock { $0.requestWillRedirect } }
        set { closures.withLock { $0.requestWillRedirect = newValue } }
    }
    /// Called for ``EventMonitor/requestDidFinish(_:)``.
    public var requestDidFinish: (@Sendable (any Request) -> Void)? {
        get { closures.withLock { $0.requestDidFinish } }
        set { closures.withLock { $0.requestDidFinish = newValue } }
    }
    /// Called for both `didParseResponse` events, with the response's error.
    public var requestDidParseResponse: (@Sendable (any Request, CurlfireError?) -> Void)? {
        get { closures.withLock { $0.requestDidParseResponse } }
        set { closures.withLock { $0.requestDidParseResponse = newValue } }
    }

    /// Creates a monitor delivering on `queue` (a new serial queue by default). The closures may be
    /// set at any time.
    public init(queue: DispatchQueue = DispatchQueue(label: "org.curlfire.closureEventMonitor")) {
        self.queue = queue
    }

    /// Forwards to the closure.
    public func requestWasCreated(_ request: any Request) { requestWasCreated?(request) }
    /// Forwards to the closure.
    public func request(_ request: any Request, didCreateInitialURLRequest urlRequest: URLRequest) {
        requestDidCreateInitialURLRequest?(request, urlRequest)
    }
    /// Forwards to the closure.
    public func request(_ request: any Request, didAdaptInitialRequest initialRequest: URLRequest,
                        to adaptedRequest: URLRequest) {
        requestDidAdapt?(request, initialRequest, adaptedRequest)
    }
    /// Forwards to the closure.
    public func request(_ request: any Request, didFailToAdaptURLRequest initialRequest: URLRequest,
                        withError error: CurlfireError) {
        requestDidFailToAdapt?(request, initialRequest, error)
    }
    /// Forwards to the closure.
    public func requestDidResume(_ request: any Request) { requestDidResume?(request) }
    /// Forwards to the closure.
    public func requestDidSuspend(_ request: any Request) { requestDidSuspend?(request) }
    /// Forwards to the closure.
    public func requestDidCancel(_ request: any Request) { requestDidCancel?(request) }
    /// Forwards to the closure.
    public func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) {
        requestDidGatherMetrics?(request, metrics)
    }
    /// Forwards to the closure.
    public func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?) {
        requestDidCompleteAttempt?(request, error)
    }
    /// Forwards to the closure.
    public func requestIsRetrying(_ request: any Request) { requestIsRetrying?(request) }
    /// Forwards to the closure.
    public func request(_ request: any Request, willRetryAfter delay: TimeInterval) {
        requestWillRetryAfter?(request, delay)
    }
    /// Forwards to the closure.
    public func circuitBreaker(_ breaker: CircuitBreaker, didTransition transition: CircuitBreaker.Transition) {
        circuitBreakerDidTransition?(transition)
    }
    /// Forwards to the closure.
    public func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) {
        requestWillRedirect?(request, redirect, response)
    }
    /// Forwards to the closure.
    public func requestDidFinish(_ request: any Request) { requestDidFinish?(request) }
    /// Forwards to the closure.
    public func request<Value>(_ request: any Request, didParseResponse response: DataResponse<Value>) {
        requestDidParseResponse?(request, response.error)
    }
    /// Forwards to the closure.
    public func request(_ request: any Request, didParseResponse response: DefaultDataResponse) {
        requestDidParseResponse?(request, response.error)
    }
}
