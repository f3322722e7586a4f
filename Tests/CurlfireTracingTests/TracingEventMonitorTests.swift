#if Tracing
import Curlfire
import CurlfireTracing
import Foundation
import InMemoryTracing
import Tracing
import XCTest

/// The global tracer and instrument these tests use: an `InMemoryTracer`, bootstrapped once per
/// process (the monitor's defaults read `InstrumentationSystem`).
enum GlobalTracer {
    static let shared: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

/// `TracingEventMonitor` and its adapter against real httpbin, with swift-distributed-tracing's
/// in-memory tracer as the global one.
final class TracingEventMonitorTests: XCTestCase {
    private var tracer: InMemoryTracer { GlobalTracer.shared }

    /// A session traced through the global tracer and instrument: the monitor alone (one line).
    private func tracedSession(_ configure: (SessionManager) -> Void = { _ in }) -> (SessionManager, TracingEventMonitor) {
        _ = GlobalTracer.shared
        let monitor = TracingEventMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        configure(session)
        return (session, monitor)
    }

    /// The finished span whose parent is `parent`, once the monitor has delivered its events.
    private func childSpan(of parent: InMemorySpan, _ monitor: TracingEventMonitor) throws -> FinishedInMemorySpan {
        monitor.queue.sync {}
        let children = tracer.finishedSpans.filter { $0.parentSpanID == parent.spanID }
        XCTAssertEqual(children.count, 1, "\(children.map(\.operationName))")
        return try XCTUnwrap(children.first)
    }

    func testThatARequestIsAClientSpanChildOfTheCallersSpanWithItsContextInjected() async throws {
        // Given: a caller's span, and a URL with credentials
        let (session, monitor) = tracedSession()
        let base = try Live.servers().httpbin
        let port = try XCTUnwrap(base.port)
        let url = try XCTUnwrap(URL(string: "http://user:secret@127.0.0.1:\(port)/headers"))
        let parent = tracer.startSpan("caller")
        // When: the request is created in the caller's context
        let request = ServiceContext.$current.withValue(parent.context) { session.request(url) }
        let response = await request.validate().serializingData().response
        parent.end()
        // Then: one client span, child of the caller's
        let span = try childSpan(of: parent, monitor)
        XCTAssertEqual(span.kind, .client)
        XCTAssertEqual(span.operationName, "GET")
        XCTAssertEqual(span.traceID, parent.traceID)
        XCTAssertEqual(span.attributes["http.request.method"]?.toSpanAttribute(), "GET")
        XCTAssertEqual(span.attributes["url.full"]?.toSpanAttribute(),
                       .string("http://REDACTED:REDACTED@127.0.0.1:\(port)/headers"))
        XCTAssertEqual(span.attributes["server.address"]?.toSpanAttribute(), "127.0.0.1")
        XCTAssertEqual(span.attributes["server.port"]?.toSpanAttribute(), .int(Int64(port)))
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), .int(200))
        XCTAssertEqual(span.attributes["network.protocol.version"]?.toSpanAttribute(), "1.1")
        XCTAssertNil(span.attributes["error.type"])
        XCTAssertNil(span.status)
        // A new connection: its stages, in order
        let names = span.events.map(\.name)
        XCTAssertTrue(names.contains("connection.established"), "\(names)")
        XCTAssertEqual(names.last, "response.first_byte")
        XCTAssertEqual(span.events.map(\.nanosecondsSinceEpoch), span.events.map(\.nanosecondsSinceEpoch).sorted())
        // The server saw the span's own context (httpbin echoes the headers)
        let echoed = try JSONSerialization.jsonObject(with: try XCTUnwrap(response.value)) as? [String: Any]
        let headers = try XCTUnwrap(echoed?["headers"] as? [String: String])
        XCTAssertEqual(headers["In-Memory-Trace-Id"], span.traceID)
        XCTAssertEqual(headers["In-Memory-Span-Id"], span.spanID)
    }

    func testThatARequestCreatedOutsideAnySpanIsARootSpan() async throws {
        // Given
        let (session, monitor) = tracedSession()
        let url = try Live.httpbin("/get?root=1")
        // When
        _ = await session.request(url).serializingData().response
        monitor.queue.sync {}
        // Then
        let span = try XCTUnwrap(tracer.finishedSpans.last { $0.attributes["url.full"]?.toSpanAttribute() == .string(url) })
        XCTAssertNil(span.parentSpanID)
        XCTAssertEqual(span.kind, .client)
    }

    func testThatRetriesAreEventsAndAServerErrorStatusIsAnError() async throws {
        // Given: a 503, retried twice
        let (session, monitor) = tracedSession { $0.retrier = RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01) }
        let url = try Live.httpbin("/status/503")
        let parent = tracer.startSpan("caller")
        // When
        let request = ServiceContext.$current.withValue(parent.context) { session.request(url) }
        _ = await request.serializingData().response
        parent.end()
        // Then
        let span = try childSpan(of: parent, monitor)
        XCTAssertEqual(span.events.filter { $0.name == "http.retry" }.count, 2)
        XCTAssertEqual(span.attributes["http.request.resend_count"]?.toSpanAttribute(), .int(2))
        XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), .int(503))
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "503")
        XCTAssertEqual(span.status?.code, .error)
        // Every attempt carried the same span's context
        let injected = tracer.performedContextInjections.filter { $0.values[InMemoryTracer.spanIDKey] == span.spanID }
        XCTAssertEqual(injected.count, 3)
    }

    func testThatATransportErrorIsRecordedWithItsType() async throws {
        // Given: a port nothing listens on
        let (session, monitor) = tracedSession()
        let parent = tracer.startSpan("caller")
        // When
        let request = ServiceContext.$current.withValue(parent.context) { session.request("http://127.0.0.1:9/") }
        let response = await request.serializingData().response
        parent.end()
        // Then
        XCTAssertNotNil(response.error)
        let span = try childSpan(of: parent, monitor)
        XCTAssertEqual(span.attributes["error.type"]?.toSpanAttribute(), "cannotConnect")
        XCTAssertNil(span.attributes["http.response.status_code"])
        XCTAssertEqual(span.errors.count, 1)
        XCTAssertEqual(span.status?.code, .error)
    }

    func testThatEachRedirectHopIsAnEvent() async throws {
        // Given: two hops followed without a handler, then one followed through a redirect handler
        let (session, monitor) = tracedSession()
        let parent = tracer.startSpan("caller")
        let native = try Live.httpbin("/redirect/2")
        let byHand = try Live.httpbin("/redirect-to?url=/get")
        // When
        let first = ServiceContext.$current.withValue(parent.context) { session.request(native) }
        _ = await first.validate().serializingData().response
        let second = ServiceContext.$current.withValue(parent.context) {
            session.request(byHand).redirect(using: Redirector(behavior: .modify { request, _ in request }))
        }
        _ = await second.validate().serializingData().response
        parent.end()
        monitor.queue.sync {}
        // Then
        let spans = tracer.finishedSpans.filter { $0.parentSpanID == parent.spanID }
        XCTAssertEqual(spans.count, 2)
        let hops = spans.map { $0.events.filter { $0.name == "http.redirect" } }
        XCTAssertEqual(hops.map(\.count).sorted(), [1, 2])
        let handHop = try XCTUnwrap(hops.first { $0.count == 1 }?.first)
        XCTAssertEqual(handHop.attributes["http.response.status_code"]?.toSpanAttribute(), .int(302))
        XCTAssertEqual(handHop.attributes["url.full"]?.toSpanAttribute(), .string(try Live.httpbin("/get")))
        let nativeHops = try XCTUnwrap(hops.first { $0.count == 2 })
        XCTAssertEqual(nativeHops.map { $0.attributes["url.full"]?.toSpanAttribute() },
                       [.string(try Live.httpbin("/relative-redirect/1")), .string(try Live.httpbin("/get"))],
                       "every hop has its target")
    }
}
#endif
