// Observability: one session with CurlfireMetrics' MetricsEventMonitor and CurlfireTracing's
// TracingEventMonitor (one line: no adapter to install), inside a caller's span, against httpbin;
// then the live phase events of a request on a fresh and on a reused connection, the pool's gauges
// with 200 requests in flight, and a HAR file recorded with HARRecorder, written, and replayed by
// CurlfireTesting's MockServer. The backends are
// the in-memory ones of swift-metrics (MetricsTestKit) and swift-distributed-tracing
// (InMemoryTracing), bootstrapped as a program bootstraps Prometheus or OpenTelemetry.
//
//     swift run --traits Metrics,Tracing Observability [HTTPBIN_URL]   (make playgrounds enables every trait)
//
// Without an argument it uses the local test servers, starting them when needed. Exits non-zero
// when a check fails.
#if Metrics && Tracing
import Curlfire
import CurlfireMetrics
import CurlfireTesting
import CurlfireTracing
import Foundation
import InMemoryTracing
import Metrics
import MetricsTestKit
import PlaygroundSupport
import Tracing

Playground.begin("Observability")
let httpbin = Playground.url(argument: 0, usage: "swift run Observability [HTTPBIN_URL]") {
    TestServerDescription.shared.httpbin
}

// MARK: - Bootstrap the backends (once per process), then one session with both monitors

let tracer = InMemoryTracer()
InstrumentationSystem.bootstrap(tracer)
let metrics = TestMetrics()
MetricsSystem.bootstrap(metrics)

let tracing = TracingEventMonitor()
let metricsMonitor = MetricsEventMonitor()
let session = SessionManager(eventMonitors: [tracing, metricsMonitor])
session.retrier = RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.05)

// MARK: - 1. Three requests inside the caller's span

Playground.section("withSpan(\"checkout\") { GET /headers; POST /post; GET /status/503 (retried twice) }")
let echoedHeaders: [String: String] = try await withSpan("checkout") { _ in
    let headers = try await session.request(httpbin.appendingPathComponent("headers")).validate()
        .serializingDecodable([String: [String: String]].self).value
    _ = await session.request(httpbin.appendingPathComponent("post"), method: .post, parameters: ["item": "book"],
                              encoding: JSONEncoding.default).serializingData().response
    _ = await session.request(httpbin.appendingPathComponent("status/503")).serializingData().response
    return headers["headers"] ?? [:]
}
// No waiting for the monitors: spans have ended and durations are recorded when a response is delivered.

/// The part of httpbin's `/get` answer the HAR section compares.
struct HTTPBinEcho: Decodable, Equatable {
    let args: [String: String]
    let url: String
}

// MARK: - 2. The trace

/// A span attribute's value as text: `200`, `1.1`, `http://…`.
func text(_ attribute: SpanAttributeConvertible?) -> String {
    switch attribute?.toSpanAttribute() {
    case let .string(value)?: value
    case let .int64(value)?: String(value)
    case let .int32(value)?: String(value)
    case let .double(value)?: String(value)
    case let .bool(value)?: String(value)
    case let other?: "\(other)"
    case nil: "-"
    }
}

Playground.section("The spans (InMemoryTracer)")
let spans = tracer.finishedSpans
guard let checkout = spans.first(where: { $0.operationName == "checkout" }) else { Playground.fail("no checkout span") }
let children = spans.filter { $0.parentSpanID == checkout.spanID }
Playground.note("checkout  trace \(checkout.traceID) span \(checkout.spanID)")
for span in children {
    func attribute(_ key: String) -> String { text(span.attributes[key]) }
    Playground.note("└ \(span.operationName) \(span.kind)  span \(span.spanID)  \(attribute("url.full")) → "
        + "\(attribute("http.response.status_code"))  HTTP/\(attribute("network.protocol.version"))"
        + (span.status?.code == .error ? "  error.type=\(attribute("error.type"))" : ""))
    for event in span.events {
        let offset = Double(event.nanosecondsSinceEpoch) / 1e9 - Double(span.startInstant.nanosecondsSinceEpoch) / 1e9
        Playground.note(String(format: "    %8.2f ms  %@", offset * 1000, event.name))
    }
}
Playground.check(children.count == 3, "three client spans, children of checkout")
Playground.check(children.allSatisfy { $0.kind == .client && $0.traceID == checkout.traceID }, "all client spans of checkout's trace")
let headersSpan = children.first { text($0.attributes["url.full"]).hasSuffix("/headers") }
Playground.check(echoedHeaders["In-Memory-Span-Id"] == headersSpan?.spanID,
                 "httpbin saw the span's context: In-Memory-Span-Id \(echoedHeaders["In-Memory-Span-Id"] ?? "none")")
let retried = children.first { $0.status?.code == .error }
Playground.check(retried?.events.filter { $0.name == "http.retry" }.count == 2, "the 503 span has two http.retry events")

// MARK: - 3. The metrics

Playground.section("The metrics (MetricsTestKit)")
for timer in metrics.timers(label: HTTPClientMetricNames.requestDuration) {
    let dimensions = timer.dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    Playground.note("\(timer.label) {\(dimensions)}: " + timer.values.map { Format.duration(Double($0) / 1e9) }.joined(separator: ", "))
}
for counter in metrics.counters {
    let dimensions = counter.dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    Playground.note("\(counter.label) {\(dimensions)}: \(counter.totalValue) bytes over \(counter.values.count) attempt(s)")
}
let active = metrics.meters(label: HTTPClientMetricNames.activeRequests).compactMap(\.lastValue)
Playground.note("\(HTTPClientMetricNames.activeRequests): \(active) now")
Playground.check(metrics.timers(label: HTTPClientMetricNames.requestDuration).reduce(0) { $0 + $1.values.count } == 3,
                 "three request durations")
Playground.check(active.allSatisfy { $0 == 0 }, "no request left active")

// MARK: - 4. Live events: one request on a fresh connection, one on the reused connection

/// Prints every live event of the requests it sees, and keeps the pool's busiest moment.
final class PhasePrinter: EventMonitor, @unchecked Sendable { // `@unchecked`: `busiest` is guarded by `lock`
    let queue = DispatchQueue(label: "phase-printer")
    private let lock = NSLock()
    private var busiest: ConnectionPoolStatistics?
    var receivesLiveEvents: Bool { true }
    let start = Date()
    var printsPhases = true

    func request(_ request: any Request, didReachPhase event: PhaseEvent) {
        guard lock.withLock({ printsPhases }) else { return }
        Playground.note(String(format: "    %8.2f ms  ", event.date.timeIntervalSince(start) * 1000) + "\(event.kind)")
    }

    func connectionPoolDidChange(_ statistics: ConnectionPoolStatistics) {
        lock.withLock {
            if statistics.activeRequests > busiest?.activeRequests ?? -1 { busiest = statistics }
        }
    }

    /// The snapshot with the most requests in the engine.
    var busiestPool: ConnectionPoolStatistics? { queue.sync {}; return lock.withLock { busiest } }
    /// Stops printing phases.
    func quiet() { lock.withLock { printsPhases = false } }
}

let printer = PhasePrinter()
var poolConfiguration = SessionConfiguration()
poolConfiguration.httpMaximumConnectionsPerHost = 8
let live = SessionManager(configuration: poolConfiguration, eventMonitors: [printer])
for label in ["fresh connection", "reused connection"] {
    Playground.section("Live events, GET /get on a \(label)")
    let response = await live.request(httpbin.appendingPathComponent("get")).validate().serializingData().response
    printer.queue.sync {}
    Playground.check(response.error == nil && response.metrics?.isReusedConnection == (label == "reused connection"),
                     "\(label): metrics agree (isReusedConnection \(response.metrics?.isReusedConnection ?? false))")
}
printer.quiet()

// MARK: - 5. Pool gauges with 200 requests in flight

Playground.section("200 requests in flight, at most 8 connections (SessionManager.connectionPoolStatistics)")
let inFlight = (0..<200).map { live.request(httpbin.appendingPathComponent("get"), parameters: ["i": $0]).serializingData() }
if let now = live.connectionPoolStatistics {
    Playground.note("right after starting: \(now.activeRequests) active, \(now.waitingRequests) waiting, "
        + "\(now.openConnections) open (\(now.inUseConnections) in use, \(now.idleConnections) idle)")
}
for request in inFlight { _ = await request.response }
if let busiest = printer.busiestPool {
    Playground.note("busiest: \(busiest.activeRequests) active, \(busiest.waitingRequests) waiting, "
        + "\(busiest.openConnections) open (\(busiest.inUseConnections) in use)")
    Playground.check(busiest.openConnections <= 8, "never more than 8 connections open")
}
let after = live.connectionPoolStatistics
for (host, counts) in after?.hosts ?? [:] {
    Playground.note("after: \(host): \(counts.open) open, \(counts.inUse) in use, \(counts.idle) idle")
}
Playground.check(after?.waitingRequests == 0 && after?.inUseConnections == 0, "afterwards nothing waits and every connection is idle")

// MARK: - 6. A HAR file: record, write, replay

Playground.section("HARRecorder: record GET /get and a two-hop redirect, write a .har file, replay it with MockServer")
let recorder = HARRecorder()
let recorded = SessionManager(eventMonitors: [recorder])
let query = httpbin.appendingPathComponent("get").absoluteString + "?item=book"
let liveEcho = try await recorded.request(query).serializingDecodable(HTTPBinEcho.self).value
_ = await recorded.request(httpbin.appendingPathComponent("redirect/2")).serializingData().response
let harFile = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-observability-\(getpid()).har")
try recorder.write(to: harFile)
let entries = recorder.document.log.entries
for entry in entries {
    let timings = entry.timings
    Playground.note("\(entry.request.method) \(entry.request.url) → \(entry.response.status)  connection \(entry.connection ?? "-")  "
        + String(format: "dns %.2f connect %.2f send %.2f wait %.2f receive %.2f = %.2f ms",
                 timings.dns, timings.connect, timings.send, timings.wait, timings.receive, entry.time))
}
Playground.note("wrote \(harFile.path) (\((try? Data(contentsOf: harFile).count) ?? 0) bytes, the format HAR viewers open)")
Playground.check(entries.map(\.response.status) == [200, 302, 302, 200], "one entry per exchange, redirect hops included")
Playground.check(entries.dropFirst().allSatisfy { $0.timings.dns == -1 }, "the later exchanges reused the connection (no dns phase)")

let replay = try MockServer(replayingHARAt: harFile)
let replayed = try await SessionManager().request(replay.url("/get?item=book")).serializingDecodable(HTTPBinEcho.self).value
let replayedRedirect = await SessionManager().request(replay.url("/redirect/2")).serializingData().response
Playground.note("replayed from \(replay.baseURL): args \(replayed.args), redirect chain ends with \(replayedRedirect.response?.statusCode ?? 0)")
Playground.check(replayed == liveEcho, "the replayed response decodes to the recorded one")
Playground.check(replayedRedirect.response?.statusCode == 200 && replay.requestCount == 4, "the redirect hops came back to the mock server")
replay.shutdown()
try? FileManager.default.removeItem(at: harFile)

Playground.finish()
#else
import Foundation

FileHandle.standardError.write(Data("Observability needs the Metrics and Tracing traits: swift run --traits Metrics,Tracing Observability\n".utf8))
exit(2)
#endif
