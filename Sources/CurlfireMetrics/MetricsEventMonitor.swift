#if Metrics
import CoreMetrics
import Curlfire
import Dispatch
import Foundation
import FoundationNetworking

/// An `EventMonitor` that records each request of a session in swift-metrics: its
/// duration, the requests in flight, and the bytes each attempt sent and received, dimensioned by
/// method, status and host (names in ``HTTPClientMetricNames``).
///
/// ```swift
/// let session = SessionManager(eventMonitors: [MetricsEventMonitor()])
/// ```
///
/// Metrics go to `MetricsSystem.factory` (whatever backend the program bootstrapped: Prometheus,
/// OpenTelemetry, …) unless a factory is given. A request counts as active from its start (not from
/// `suspend`/`resume` pairs after it) until it finishes; its duration is measured between those two
/// events as this monitor receives them. Bytes are counted per attempt, so a retried request adds
/// each attempt's bytes.
public final class MetricsEventMonitor: EventMonitor {
    /// The serial queue events are delivered on.
    public let queue: DispatchQueue
    private let factory: any MetricsFactory
    private let inFlight = Locked<[UUID: Started]>([:])

    /// What is kept about a request between its start and its end.
    private struct Started {
        let method: String
        let host: String
        let start: DispatchTime
    }

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - factory: Where metrics are recorded. `MetricsSystem.factory` (the bootstrapped backend) by default.
    ///   - queue:   Where events are delivered. A new serial queue by default.
    public init(factory: any MetricsFactory = MetricsSystem.factory,
                queue: DispatchQueue = DispatchQueue(label: "org.curlfire.metrics")) {
        self.factory = factory
        self.queue = queue
    }

    /// Counts the request as active (the first time it resumes).
    public func requestDidResume(_ request: any Request) {
        let started = Started(method: Self.method(of: request), host: Self.host(of: request), start: .now())
        let isFirst = inFlight.withLock { requests -> Bool in
            guard requests[request.id] == nil else { return false }
            requests[request.id] = started
            return true
        }
        guard isFirst else { return }
        Meter(label: HTTPClientMetricNames.activeRequests, dimensions: Self.dimensions(started), factory: factory)
            .increment()
    }

    /// Adds the attempt's bytes sent and received.
    public func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) {
        let started = inFlight.withLock { $0[request.id] }
        let dimensions = [(HTTPClientMetricNames.method, started?.method ?? Self.method(of: request)),
                          (HTTPClientMetricNames.status, Self.status(of: request)),
                          (HTTPClientMetricNames.host, started?.host ?? Self.host(of: request))]
        if metrics.bytesSent > 0 {
            Counter(label: HTTPClientMetricNames.bytesSent, dimensions: dimensions, factory: factory)
                .increment(by: metrics.bytesSent)
        }
        if metrics.bytesReceived > 0 {
            Counter(label: HTTPClientMetricNames.bytesReceived, dimensions: dimensions, factory: factory)
                .increment(by: metrics.bytesReceived)
        }
    }

    /// Records the duration with the final status, and counts the request as no longer active.
    public func requestDidFinish(_ request: any Request) {
        guard let started = inFlight.withLock({ $0.removeValue(forKey: request.id) }) else { return }
        Meter(label: HTTPClientMetricNames.activeRequests, dimensions: Self.dimensions(started), factory: factory)
            .decrement()
        let elapsed = DispatchTime.now().uptimeNanoseconds - started.start.uptimeNanoseconds
        let timer = CoreMetrics.Timer(label: HTTPClientMetricNames.requestDuration,
                          dimensions: [(HTTPClientMetricNames.method, started.method),
                                       (HTTPClientMetricNames.status, Self.status(of: request)),
                                       (HTTPClientMetricNames.host, started.host)],
                          preferredDisplayUnit: .seconds, factory: factory)
        timer.recordNanoseconds(Int64(clamping: elapsed))
    }

    // MARK: - Dimensions

    private static func dimensions(_ started: Started) -> [(String, String)] {
        [(HTTPClientMetricNames.method, started.method), (HTTPClientMetricNames.host, started.host)]
    }

    private static func method(of request: any Request) -> String {
        request.request?.httpMethod ?? "_OTHER"
    }

    private static func host(of request: any Request) -> String {
        request.request?.url?.host ?? "none"
    }

    private static func status(of request: any Request) -> String {
        request.response.map { String($0.statusCode) } ?? "none"
    }
}

/// A value guarded by an `NSLock` (`Synchronization.Mutex`'s futex is invisible to ThreadSanitizer
/// on this toolchain, which then reports races on guarded state).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
#endif
