#if Tracing
import Curlfire
import Dispatch
import Foundation
import FoundationNetworking
import Tracing

/// An `EventMonitor` that traces each request of a session as one client span, with
/// OpenTelemetry's HTTP client attributes and the stages of each attempt as span events.
///
/// ```swift
/// let session = SessionManager(eventMonitors: [TracingEventMonitor()])   // one line
///
/// try await withSpan("checkout") { _ in
///     _ = try await session.request(url).validate().serializingData().value   // a child of "checkout"
/// }
/// ```
///
/// - The span is a child of `ServiceContext.current` where the request is **created** (seen
///   through `EventMonitor/requestWasCreated(_:)`, which runs on the creating task). It
///   starts with the request and ends when it finishes, retries and redirects included; it is
///   named after the method (`GET`), as OpenTelemetry names HTTP client spans.
/// - Attributes: `http.request.method`, `url.full` (user, password and signature query values
///   `REDACTED`), `server.address`, `server.port`, `http.response.status_code`,
///   `network.protocol.version`, `http.request.resend_count` after retries, and `error.type` (the
///   status code for a 4xx or 5xx, else the transport cause such as `timedOut`) with an error status.
/// - Events, from the live events (`PhaseEvent`) at the time they happen: `dns.lookup.start` and
///   `dns.lookup.done` (with `network.peer.address`), `connection.start` and `connection.established`
///   (only when the attempt made a new connection), `tls.handshake.start` and `tls.handshake.done`
///   (with `tls.protocol.version` and `tls.cipher`, over TLS), `connection.acquired` (with
///   `curlfire.connection.id` and `curlfire.connection.reused`), `http.request.headers_sent`,
///   `http.response.headers` and `response.first_byte`; `http.redirect` per redirect hop (Curlfire
///   follows every hop itself, so each has its target and status); `http.retry` per retry.
/// - The trace context goes into the request headers through ``requestAdapter`` (the monitor's own
///   adapter, run after the session's `SessionManager.adapter` and interceptor): nothing to install.
/// - The span has ended before the request's response handlers run or its `await` returns
///   (``finishesBeforeDelivery``).
public final class TracingEventMonitor: EventMonitor {
    /// The serial queue events are delivered on.
    public let queue: DispatchQueue
    let requests: TracedRequests
    private let instrument: (any Instrument)?

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - tracer:     Starts the spans. `InstrumentationSystem.tracer` (the bootstrapped one) by default.
    ///   - instrument: Injects the trace context into request headers (``adapter``).
    ///                 `InstrumentationSystem.instrument` (the bootstrapped one) by default.
    ///   - queue:      Where events are delivered. A new serial queue by default.
    public init(tracer: (any Tracer)? = nil, instrument: (any Instrument)? = nil,
                queue: DispatchQueue = DispatchQueue(label: "org.curlfire.tracing")) {
        requests = TracedRequests(tracer: tracer ?? InstrumentationSystem.tracer)
        self.instrument = instrument
        self.queue = queue
    }

    /// The adapter that injects each request's span context into its headers (see ``TracingAdapter``).
    /// The session runs it already, as this monitor's ``requestAdapter``.
    public var adapter: TracingAdapter { TracingAdapter(requests: requests, instrument: instrument) }

    /// ``adapter``: every request of the session gets the trace context of its span, after the
    /// session's own adapters.
    public var requestAdapter: (any RequestAdapter)? { adapter }
    /// Responses wait for the span to end (``requestDidFinish(_:)``).
    public var finishesBeforeDelivery: Bool { true }
    /// Receives the live events that become span events.
    public var receivesLiveEvents: Bool { true }

    // MARK: - Events

    /// Captures the caller's `ServiceContext`: the parent of the request's span.
    public func requestWasCreated(_ request: any Request) {
        requests.created(request, parent: ServiceContext.current ?? .topLevel)
    }

    /// Starts the span, if the adapter has not.
    public func requestDidResume(_ request: any Request) {
        _ = requests.span(for: request)
    }

    /// Adds the phase as a span event, stamped when it happened.
    public func request(_ request: any Request, didReachPhase event: PhaseEvent) {
        guard let (name, attributes) = SpanEventNames.event(for: event.kind) else { return }
        let nanoseconds = UInt64(max(0, event.date.timeIntervalSince1970 * 1e9))
        requests.span(for: request).addEvent(
            SpanEvent(name: name, at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: nanoseconds), attributes: attributes))
    }

    /// Sets the attempt's protocol version.
    public func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) {
        let span = requests.span(for: request)
        if let version = HTTPClientSpanAttributes.protocolVersion(metrics.httpVersion) {
            span.attributes["network.protocol.version"] = version
        }
    }

    /// Notes the attempt's transport error (reported when the request finishes).
    public func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?) {
        requests.attemptEnded(request, error: error)
    }

    /// Adds an `http.retry` event.
    public func requestIsRetrying(_ request: any Request) {
        let span = requests.span(for: request)
        let resends = request.retryCount + 1
        span.addEvent(SpanEvent(name: "http.retry", attributes: ["http.request.resend_count": .int(Int64(resends))]))
        span.attributes["http.request.resend_count"] = resends
    }

    /// Adds an `http.redirect` event for a hop followed by a redirect handler.
    public func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) {
        var attributes: SpanAttributes = ["http.response.status_code": .int(Int64(response.statusCode))]
        if let url = redirect.url { attributes["url.full"] = HTTPClientSpanAttributes.redacted(url) }
        requests.span(for: request).addEvent(SpanEvent(name: "http.redirect", attributes: attributes))
    }

    /// Sets the status (and `error.type` for an error) and ends the span.
    public func requestDidFinish(_ request: any Request) {
        let (span, error) = requests.finish(request)
        if let urlRequest = request.request { HTTPClientSpanAttributes.setRequestAttributes(of: urlRequest, on: span) }
        if let response = request.response {
            span.attributes["http.response.status_code"] = response.statusCode
            if error == nil, response.statusCode >= 400 {
                span.attributes["error.type"] = String(response.statusCode)
                span.setStatus(SpanStatus(code: .error))
            }
        }
        if let error {
            span.attributes["error.type"] = HTTPClientSpanAttributes.errorType(error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }
}
#endif
