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
/// With live events it also exports the session's connection pool: ``HTTPClientMetricNames/openConnections``
/// per ``HTTPClientMetricNames/connectionState`` and ``HTTPClientMetricNames/connectionDuration``,
/// with OpenTelemetry's HTTP client names and attributes; and each request's body sizes.
///
/// Every request's duration is recorded before its response handlers run or its `await` returns
/// (``finishesBeforeDelivery``).
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
    /// The pool gauges set so far (`host:port` keys), to zero the ones of hosts no longer in the pool.
    private let poolKeys = Locked<Set<String>>([])

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

    /// Responses wait for this monitor's ``requestDidFinish(_:)``: the duration is recorded before
    /// the caller sees the response.
    public var finishesBeforeDelivery: Bool { true }
    /// Receives the pool's changes (``connectionPoolDidChange(_:)``, ``connectionDidClose(_:)``).
    public var receivesLiveEvents: Bool { true }

    /// Sets ``HTTPClientMetricNames/openConnections`` per host, port and state.
    public func connectionPoolDidChange(_ statistics: ConnectionPoolStatistics) {
        let gone = poolKeys.withLock { keys -> Set<String> in
            let gone = keys.subtracting(statistics.hosts.keys)
            keys = Set(statistics.hosts.keys)
            return gone
        }
        for key in gone { setPoolGauges(key: key, idle: 0, active: 0) }
        for (key, host) in statistics.hosts { setPoolGauges(key: key, idle: host.idle, active: host.inUse) }
    }

    private func setPoolGauges(key: String, idle: Int, active: Int) {
        let (host, port) = Self.split(key)
        for (state, value) in [(HTTPClientMetricNames.idle, idle), (HTTPClientMetricNames.active, active)] {
            Meter(label: HTTPClientMetricNames.openConnections,
                  dimensions: [(HTTPClientMetricNames.connectionState, state), (HTTPClientMetricNames.host, host),
                               (HTTPClientMetricNames.port, port)], factory: factory).set(value)
        }
    }

    /// Records ``HTTPClientMetricNames/connectionDuration``.
    public func connectionDidClose(_ connection: ClosedConnection) {
        CoreMetrics.Timer(label: HTTPClientMetricNames.connectionDuration,
                          dimensions: [(HTTPClientMetricNames.host, connection.host),
                                       (HTTPClientMetricNames.port, String(connection.port))],
                          preferredDisplayUnit: .seconds, factory: factory)
            .recordNanoseconds(Int64(clamping: Int64(connection.duration * 1e9)))
    }

    /// `host:port` (the host may be an IPv6 address) as its two parts.
    static func split(_ key: String) -> (String, String) {
        guard let colon = key.lastIndex(of: ":") else { return (key, "") }
        return (String(key[..<colon]), String(key[key.index(after: colon)...]))
    }

    /// Records the duration with the final status and the body sizes, and counts the request as no
    /// longer active.
    public func requestDidFinish(_ request: any Request) {
        guard let started = inFlight.withLock({ $0.removeValue(forKey: request.id) }) else { return }
        let sizeDimensions = [(HTTPClientMetricNames.method, started.method),
                              (HTTPClientMetricNames.status, Self.status(of: request)),
                              (HTTPClientMetricNames.host, started.host)]
        if let size = Self.requestBodySize(request) {
            Recorder(label: HTTPClientMetricNames.requestBodySize, dimensions: sizeDimensions, factory: factory)
                .record(size)
        }
        if let size = request.response?.value(forHTTPHeaderField: "Content-Length").flatMap({ Int64($0) }) {
            Recorder(label: HTTPClientMetricNames.responseBodySize, dimensions: sizeDimensions, factory: factory)
                .record(size)
        }
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

    private static func requestBodySize(_ request: any Request) -> Int64? {
        guard let sent = request.request else { return nil }
        if let length = sent.value(forHTTPHeaderField: "Content-Length").flatMap({ Int64($0) }) { return length }
        return sent.httpBody.map { Int64($0.count) }
    }

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
