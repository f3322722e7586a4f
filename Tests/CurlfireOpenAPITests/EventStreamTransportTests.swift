#if OpenAPI
import Curlfire
import CurlfireOpenAPI
import CurlfireTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import XCTest

/// A `text/event-stream` body carried by `CurlfireTransport` and decoded by swift-openapi-runtime's
/// own `asDecodedServerSentEvents`, with and without a retrier on the session. This file imports
/// both modules: their two `ServerSentEvent` types are told apart by module name where spelled.
final class EventStreamTransportTests: XCTestCase {
    private let scripted: [Curlfire.ServerSentEvent] = [
        Curlfire.ServerSentEvent(id: "1", event: "tick", data: "{\"n\":1}"),
        Curlfire.ServerSentEvent(id: "2", data: "two\nlines"),
        Curlfire.ServerSentEvent(id: "3", event: "tick", data: "{\"n\":3}", retry: 500),
    ]

    private func decodedEvents(_ session: SessionManager) async throws -> [OpenAPIRuntime.ServerSentEvent] {
        let server = try MockServer()
        server.enqueue(.eventStream(scripted, interval: 0.02))
        let transport = CurlfireTransport(session: session)
        let (response, body) = try await transport.send(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/events"), body: nil,
            baseURL: server.url("/"), operationID: "events")
        XCTAssertEqual(response.status.code, 200)
        XCTAssertEqual(response.headerFields[.contentType], "text/event-stream")
        var events: [OpenAPIRuntime.ServerSentEvent] = []
        for try await event in try XCTUnwrap(body).asDecodedServerSentEvents() { events.append(event) }
        return events
    }

    private func assertSameAsCurlfire(_ events: [OpenAPIRuntime.ServerSentEvent], file: StaticString = #filePath,
                                      line: UInt = #line) {
        XCTAssertEqual(events.map(\.id), scripted.map(\.id), file: file, line: line)
        XCTAssertEqual(events.map(\.data), scripted.map(\.data), file: file, line: line)
        XCTAssertEqual(events.map { $0.event ?? "message" }, scripted.map(\.event), file: file, line: line)
        XCTAssertEqual(events.last?.retry, 500, file: file, line: line)
    }

    func testThatAStreamedEventStreamDecodesWithTheRuntimesDecoder() async throws {
        assertSameAsCurlfire(try await decodedEvents(SessionManager()))
    }

    func testThatAnEventStreamDecodesWhenTheSessionHasARetrier() async throws {
        let session = SessionManager()
        session.retrier = RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01)
        assertSameAsCurlfire(try await decodedEvents(session))
    }

    func testThatBothEventTypesAreUsableSideBySide() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(scripted))
        var ours: [Curlfire.ServerSentEvent] = []
        let request = SessionManager().eventStreamRequest(server.url("/events"), configuration: .init(reconnects: false))
        for try await event in request.events() { ours.append(event) } // no spelling needed: inferred
        XCTAssertEqual(ours, scripted)
    }
}
#endif
