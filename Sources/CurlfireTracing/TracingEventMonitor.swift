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
/// let tracing = TracingEventMonitor()
/// let session = SessionManager(eventMonitors: [tracing])
/// session.adapter = tracing.adapter          // puts the trace context into the request headers
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
/// - Events: per attempt `dns.lookup.done`, `connection.established`, `tls.handshake.done` (those
///   three only when the attempt made a new connection, TLS only over TLS) and `response.first_byte`,
///   timed from `TransferMetrics`; `http.redirect` per redirect hop (Curlfire follows every
///   hop itself, so each has its target and status); `http.retry` per retry.
/// - The trace context goes into the request headers only with ``adapter`` installed.
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

    /// The adapter that injects each request's span context into its headers; set it as the
    /// session's `adapter` (see ``TracingAdapter``).
    public var adapter: TracingAdapter { TracingAdapter(requests: requests, instrument: instrument) }

    // MARK: - Events

    /// Captures the caller's `ServiceContext`: the parent of the request's span.
    public func requestWasCreated(_ request: any Request) {
        requests.created(request, parent: ServiceContext.current ?? .topLevel)
    }

    /// Starts the span, if the adapter has not.
    public func requestDidResume(_ request: any Request) {
        _ = requests.span(for: request)
    }

    /// Adds the attempt's stages as events, and its protocol version and redirects.
    public func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) {
        let span = requests.span(for: request)
        func event(_ name: String, after seconds: TimeInterval, _ attributes: SpanAttributes = [:]) {
            let date = metrics.startDate.addingTimeInterval(seconds)
            let nanoseconds = UInt64(max(0, date.timeIntervalSince1970 * 1e9))
            span.addEvent(SpanEvent(name: name, at: DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: nanoseconds),
                                    attributes: attributes))
        }
        if !metrics.isReusedConnection {
            if metrics.nameLookupDuration > 0 { event("dns.lookup.done", after: metrics.nameLookupDuration) }
            if metrics.connectDuration > 0 {
                var attributes: SpanAttributes = [:]
                if let address = metrics.remoteAddress { attributes["network.peer.address"] = address }
                if let port = metrics.remotePort { attributes["network.peer.port"] = port }
                event("connection.established", after: metrics.connectDuration, attributes)
            }
            if metrics.tlsHandshakeDuration > 0 {
                var attributes: SpanAttributes = [:]
                if let version = metrics.tlsVersion { attributes["tls.protocol.version"] = version }
                event("tls.handshake.done", after: metrics.tlsHandshakeDuration, attributes)
            }
        }
        if metrics.firstByteDuration > 0 { event("response.first_byte", after: metrics.firstByteDuration) }
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
