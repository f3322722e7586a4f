#if Tracing
import Curlfire
import CurlfireTracing
import Foundation
import FoundationNetworking
import InMemoryTracing
import Tracing
import XCTest

/// The user's own adapter: an `Authorization` header.
private struct BearerAdapter: RequestAdapter {
    func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        var adapted = urlRequest
        adapted.setValue("Bearer user-token", forHTTPHeaderField: "Authorization")
        return adapted
    }
}


/// `TracingEventMonitor()` alone, in one line: the trace context reaches the server next to the
/// user's own adapter, every span has ended when its response is delivered, and the live events
/// are span events.
final class TracingDeliveryTests: XCTestCase {
    private var tracer: InMemoryTracer { GlobalTracer.shared }

    /// The finished span whose `url.full` is `url`, if it has ended.
    private func finishedSpan(_ url: String) -> FinishedInMemorySpan? { Self.finishedSpan(url) }

    private static func finishedSpan(_ url: String) -> FinishedInMemorySpan? {
        GlobalTracer.shared.finishedSpans.last { $0.attributes["url.full"]?.toSpanAttribute() == .string(url) }
    }

    func testThatOneLineInjectsTheTraceContextNextToTheUsersOwnAdapter() async throws {
        // Given: the monitor alone, and the user's authentication adapter in the session's slot
        _ = GlobalTracer.shared
        let session = SessionManager(eventMonitors: [TracingEventMonitor()])
        session.adapter = BearerAdapter()
        let url = try Live.httpbin("/headers?one-line=\(UUID().uuidString)")
        // When
        let response = await session.request(url).validate().serializingData().response
        // Then: httpbin echoes both
        let echoed = try JSONSerialization.jsonObject(with: try XCTUnwrap(response.value)) as? [String: Any]
        let headers = try XCTUnwrap(echoed?["headers"] as? [String: String])
        XCTAssertEqual(headers["Authorization"], "Bearer user-token")
        let span = try XCTUnwrap(finishedSpan(url))
        XCTAssertEqual(headers["In-Memory-Trace-Id"], span.traceID)
        XCTAssertEqual(headers["In-Memory-Span-Id"], span.spanID)
    }

    func testThatEverySpanHasEndedWhenItsAwaitReturnsOneAfterAnother() async throws {
        // Given
        _ = GlobalTracer.shared
        let session = SessionManager(eventMonitors: [TracingEventMonitor()])
        let base = try Live.httpbin("/get?sequential=\(UUID().uuidString)&i=")
        // When / Then: 1,000 of 1,000
        var missing: [Int] = []
        for index in 0..<1_000 {
            let url = base + "\(index)"
            let response = await session.request(url).serializingData().response
            XCTAssertNil(response.error)
            if let span = finishedSpan(url) {
                XCTAssertEqual(span.attributes["http.response.status_code"]?.toSpanAttribute(), .int(200))
            } else {
                missing.append(index)
            }
        }
        XCTAssertEqual(missing, [], "spans not ended when the response was delivered")
    }

    func testThatEverySpanHasEndedWhenItsResponseIsDeliveredConcurrently() async throws {
        // Given
        _ = GlobalTracer.shared
        let session = SessionManager(eventMonitors: [TracingEventMonitor()])
        let base = try Live.httpbin("/get?concurrent=\(UUID().uuidString)&i=")
        // When: 1,000 at once, half awaited, half through a completion handler
        let missing = await withTaskGroup(of: Int?.self) { group -> [Int] in
            for index in 0..<1_000 {
                group.addTask {
                    let url = base + "\(index)"
                    let request = session.request(url)
                    let ended: Bool
                    if index.isMultiple(of: 2) {
                        _ = await request.serializingData().response
                        ended = Self.finishedSpan(url) != nil
                    } else {
                        ended = await withCheckedContinuation { continuation in
                            request.response(queue: .global()) { _ in
                                continuation.resume(returning: Self.finishedSpan(url) != nil)
                            }
                        }
                    }
                    return ended ? nil : index
                }
            }
            var missing: [Int] = []
            for await index in group { if let index { missing.append(index) } }
            return missing
        }
        // Then: 1,000 of 1,000
        XCTAssertEqual(missing, [], "spans not ended when the response was delivered")
    }

    func testThatLiveEventsBecomeSpanEventsForAFreshAndAReusedConnection() async throws {
        // Given
        _ = GlobalTracer.shared
        let session = SessionManager(eventMonitors: [TracingEventMonitor()])
        let marker = UUID().uuidString
        let fresh = try Live.httpbin("/get?fresh=\(marker)")
        let reused = try Live.httpbin("/get?reused=\(marker)")
        // When
        _ = await session.request(fresh).validate().serializingData().response
        _ = await session.request(reused).validate().serializingData().response
        // Then
        let freshSpan = try XCTUnwrap(finishedSpan(fresh))
        let reusedSpan = try XCTUnwrap(finishedSpan(reused))
        let freshNames = freshSpan.events.map(\.name).filter { !$0.hasPrefix("dns.") }
        XCTAssertEqual(freshNames, ["connection.start", "connection.established", "connection.acquired",
                                    "http.request.headers_sent", "http.response.headers", "response.first_byte"])
        XCTAssertEqual(reusedSpan.events.map(\.name), ["connection.acquired", "http.request.headers_sent",
                                                       "http.response.headers", "response.first_byte"])
        XCTAssertEqual(reusedSpan.events.first?.attributes["curlfire.connection.reused"]?.toSpanAttribute(), .bool(true))
        // At the time they happened: in order, inside the span
        for span in [freshSpan, reusedSpan] {
            let times = span.events.map(\.nanosecondsSinceEpoch)
            XCTAssertEqual(times, times.sorted())
            XCTAssertGreaterThanOrEqual(times.first ?? 0, span.startInstant.nanosecondsSinceEpoch)
            XCTAssertLessThanOrEqual(times.last ?? .max, span.endInstant.nanosecondsSinceEpoch)
        }
    }
}
#endif
