#if Tracing
import Curlfire
import Foundation
import FoundationNetworking
import Tracing

/// Injects the trace context of each request's client span into its header fields, before every
/// attempt, through an `Instrument` (`InstrumentationSystem.instrument`, the bootstrapped one, by
/// default): `traceparent` with an OpenTelemetry tracer, whatever the instrument writes otherwise.
///
/// The monitor that starts the spans runs it as its `EventMonitor/requestAdapter`: nothing to install.
/// Installing it as the session adapter too (as before) is harmless: it sets the same header.
///
/// ```swift
/// let session = SessionManager(eventMonitors: [TracingEventMonitor()])
/// session.adapter = AuthAdapter()   // the session's adapter stays yours
/// ```
///
/// It finds the span through `Request/id`, and runs after the session's adapter and interceptor.
public struct TracingAdapter: RequestAdapter {
    let requests: TracedRequests
    let instrument: (any Instrument)?

    /// Without the request, there is no span to inject: returns `urlRequest` unchanged. Curlfire
    /// calls ``adapt(_:for:session:completion:)``.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }

    /// Injects the context of `request`'s span into `urlRequest` (starting the span if this is the
    /// first attempt).
    public func adapt(_ urlRequest: URLRequest, for request: any Request, session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        let span = requests.span(for: request)
        var adapted = urlRequest
        (instrument ?? InstrumentationSystem.instrument).inject(span.context, into: &adapted, using: HeaderInjector())
        completion(.success(adapted))
    }
}

/// Writes a trace header into a `URLRequest`, replacing an earlier value (on a retry).
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout URLRequest) {
        carrier.setValue(value, forHTTPHeaderField: key)
    }
}
#endif
