import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// EventStreamRequest against MockServer's scripted event streams: order, reconnection with
/// Last-Event-ID after `retry:`, 204, typed errors, limits, idle timeout, cancellation, the
/// closure form, decoding with a terminator, adapters on every connection, and TLS trust.
final class EventStreamMockTests: XCTestCase {
    private func events(_ ids: ClosedRange<Int>) -> [ServerSentEvent] {
        ids.map { ServerSentEvent(id: "\($0)", event: "tick", data: "event \($0)\nline two") }
    }

    private let once = EventStreamConfiguration(reconnects: false)

    func testThatEventsArriveInOrderWithTheResponseHeadTimelineAndMetrics() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...3)))
        let request = SessionManager().eventStreamRequest(server.url("/feed"), configuration: once)
        let (received, error) = await collect(request)
        XCTAssertNil(error)
        XCTAssertEqual(received, events(1...3))
        XCTAssertEqual(received.first?.data, "event 1\nline two")
        XCTAssertEqual(request.response?.statusCode, 200)
        let connection = try XCTUnwrap(request.connections.first)
        XCTAssertEqual(request.connections.count, 1)
        XCTAssertNotNil(connection.metrics)
        XCTAssertGreaterThanOrEqual(connection.timeline.requestCompletedTime, connection.timeline.requestStartTime)
        let recorded = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(recorded.header("Accept"), "text/event-stream")
        XCTAssertEqual(recorded.header("Cache-Control"), "no-cache")
        XCTAssertNil(recorded.header("Last-Event-ID"))
    }

    func testThatAMidStreamDisconnectReconnectsAfterRetryWithTheLastEventID() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...4), retry: 300).disconnect(.midBody)) // events 1 and 2, then dropped
        server.enqueue(.eventStream(events(3...4)))                                  // ends cleanly
        server.enqueue(MockResponse(statusCode: 204))                                // stop
        let request = SessionManager().eventStreamRequest(server.url("/feed"),
                                                          configuration: .init(reconnectionTime: 30, jitter: 0))
        let started = Date()
        let (received, error) = await collect(request)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertNil(error, "a 204 ends the stream without an error")
        XCTAssertEqual(received.map(\.id), ["1", "2", "3", "4"])
        XCTAssertGreaterThanOrEqual(elapsed, 0.6, "two waits of the server's 300 ms, not the configured 30 s")
        XCTAssertLessThan(elapsed, 20)
        XCTAssertNil(server.takeRequest()?.header("Last-Event-ID"))
        XCTAssertEqual(server.takeRequest()?.header("Last-Event-ID"), "2")
        XCTAssertEqual(server.takeRequest()?.header("Last-Event-ID"), "4")
        XCTAssertEqual(request.connections.count, 3)
        XCTAssertNotNil(request.connections[0].error, "the first connection was cut")
        XCTAssertEqual(request.connections[2].response?.statusCode, 204)
    }

    func testThatNon2xxAndWrongContentTypeFailTypedWithoutReconnecting() async throws {
        let server = try MockServer()
        server.enqueue(.text("overloaded", statusCode: 503))
        server.enqueue(.json(["not": "a stream"]))
        let session = SessionManager()
        let (_, statusError) = await collect(session.eventStreamRequest(server.url("/a"), configuration: .init(reconnectionTime: 0)))
        XCTAssertEqual(statusError?.responseCode, 503)
        let (_, typeError) = await collect(session.eventStreamRequest(server.url("/b"), configuration: .init(reconnectionTime: 0)))
        guard case .responseValidationFailed(.unacceptableContentType(_, "application/json"))? = typeError else {
            return XCTFail("\(String(describing: typeError))")
        }
        XCTAssertEqual(server.requestCount, 2, "no reconnection after either")
    }

    func testThatWithoutReconnectionADroppedConnectionFails() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...4)).disconnect(.midBody))
        let (received, error) = await collect(SessionManager().eventStreamRequest(server.url("/feed"), configuration: once))
        XCTAssertEqual(received.map(\.id), ["1", "2"])
        XCTAssertEqual(error?.transportErrorCode, .connectionLost, "\(String(describing: error))")
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatConnectionsWithoutEventsGiveUpAfterTheMaximumAttempts() async throws {
        let server = try MockServer()
        for _ in 0..<5 { server.enqueue(.eventStream([])) }
        let configuration = EventStreamConfiguration(reconnectionTime: 0.01, jitter: 0, maximumReconnectionAttempts: 2)
        let (_, error) = await collect(SessionManager().eventStreamRequest(server.url("/empty"), configuration: configuration))
        guard case .eventStreamFailed(.reconnectionLimitReached(2, nil))? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertEqual(server.requestCount, 3, "the first connection and two reconnections")
    }

    func testThatAnEventPastTheMaximumSizeFailsTyped() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream([ServerSentEvent(data: String(repeating: "x", count: 5000))]))
        let configuration = EventStreamConfiguration(reconnectionTime: 0, maximumEventSize: 1024)
        let (_, error) = await collect(SessionManager().eventStreamRequest(server.url("/big"), configuration: configuration))
        guard case .eventStreamFailed(.eventTooLarge(1024))? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatTheIdleTimeoutDetectsAStalledServer() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...2)).stalled(at: .midBody, for: 30))
        let configuration = EventStreamConfiguration(reconnects: false, idleTimeout: 1)
        let started = Date()
        let (received, error) = await collect(SessionManager().eventStreamRequest(server.url("/stall"), configuration: configuration))
        XCTAssertEqual(received.map(\.id), ["1"])
        XCTAssertEqual(error?.transportErrorCode, .timedOut, "\(String(describing: error))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "detected long before the server's 30 s stall ends")
    }

    func testThatCancelEndsTheWaitBeforeAReconnection() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...1)))
        let request = SessionManager().eventStreamRequest(server.url("/feed"), configuration: .init(reconnectionTime: 60))
        let task = Task { await collect(request) }
        while request.connections.isEmpty { try await Task.sleep(nanoseconds: 20_000_000) } // now waiting 60 s
        let started = Date()
        request.cancel()
        let (received, error) = await task.value
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(received.count, 1)
        guard case .explicitlyCancelled? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatCancellingTheTaskEndsAnOpenConnection() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...2)).stalled(at: .midBody, for: 30))
        let request = SessionManager().eventStreamRequest(server.url("/feed"))
        let first = XCTestExpectation(description: "first event")
        let task = Task {
            for try await _ in request.events() { first.fulfill() }
        }
        await fulfillment(of: [first], timeout: 10)
        let started = Date()
        task.cancel()
        let result = await task.result
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        guard case let .failure(error) = result, case .explicitlyCancelled? = error as? CurlfireError else {
            return XCTFail("\(result)")
        }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatTheEventsAreConsumedOnce() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...1)))
        let request = SessionManager().eventStreamRequest(server.url("/feed"), configuration: once)
        _ = await collect(request)
        let (_, error) = await collect(request)
        guard case .eventStreamFailed(.alreadyConsumed)? = error else { return XCTFail("\(String(describing: error))") }
    }

    func testThatTheClosureFormDeliversEventsThenOneCompletion() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...3), interval: 0.05))
        let received = Recorder<ServerSentEvent>()
        let done = ResponseWaiter<EventStreamRequest.Completion>()
        let queue = DispatchQueue(label: "sse-test")
        SessionManager().eventStreamRequest(server.url("/feed"), configuration: once).streamEvents(queue: queue) { stream in
            dispatchPrecondition(condition: .onQueue(queue))
            switch stream.event {
            case let .event(event): received.append(event)
            case let .complete(completion): done.fulfil(completion)
            }
        }
        let completion = await done.value
        XCTAssertNil(completion.error)
        XCTAssertEqual(received.all, events(1...3))
        XCTAssertEqual(completion.connections.count, 1)
        XCTAssertEqual(completion.response?.statusCode, 200)
    }

    private struct Chunk: Decodable, Equatable {
        let token: String
    }

    func testThatDecodingEventsStopsAtTheTerminatorOfAPostedCompletion() async throws {
        let tokens = ["Hel", "lo", "!"].map { ServerSentEvent(data: "{\"token\":\"\($0)\"}") }
        let stream = try MockServer()
        stream.enqueue(.eventStream(tokens + [ServerSentEvent(data: "[DONE]"), ServerSentEvent(data: "{\"token\":\"after\"}")],
                                    interval: 0.02))
        let request = SessionManager().eventStreamRequest(stream.url("/v1/chat/completions"), method: .post,
                                                          parameters: ["model": "m", "stream": true],
                                                          encoding: JSONEncoding.default)
        var values: [Chunk] = []
        for try await chunk in request.decodingEvents(of: Chunk.self) { values.append(chunk) }
        XCTAssertEqual(values.map(\.token), ["Hel", "lo", "!"])
        XCTAssertEqual(request.connections.count, 1, "the connection ended at the terminator is recorded")
        XCTAssertNotNil(request.connections.first?.metrics)
        let recorded = try XCTUnwrap(stream.takeRequest())
        XCTAssertEqual(recorded.method, "POST")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: recorded.body) as? [String: Any])
        XCTAssertEqual(body["model"] as? String, "m")
        XCTAssertEqual(stream.requestCount, 1, "the terminator ends the stream: no reconnection")
    }

    func testThatTheModuleLevelFormSendsAURLRequestsPOSTBodyOnEveryConnection() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...1)))
        server.enqueue(.eventStream(events(2...2)))
        server.enqueue(MockResponse(statusCode: 204))
        var urlRequest = URLRequest(url: server.url("/v1/responses"))
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = Data(#"{"input":"hi","stream":true}"#.utf8)
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (received, error) = await collect(Curlfire.eventStreamRequest(urlRequest, configuration: .init(reconnectionTime: 0.01)))
        XCTAssertNil(error)
        XCTAssertEqual(received.map(\.id), ["1", "2"])
        for index in 0..<3 {
            let recorded = try XCTUnwrap(server.takeRequest(), "connection \(index)")
            XCTAssertEqual(recorded.method, "POST")
            XCTAssertEqual(String(decoding: recorded.body, as: UTF8.self), #"{"input":"hi","stream":true}"#)
        }
    }

    func testThatAnUndecodableEventFailsTheDecodingSequence() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream([ServerSentEvent(data: "{\"token\":\"a\"}"), ServerSentEvent(data: "not json")]))
        var values: [Chunk] = []
        do {
            for try await chunk in SessionManager().eventStreamRequest(server.url("/x")).decodingEvents(of: Chunk.self) {
                values.append(chunk)
            }
            XCTFail("no error")
        } catch CurlfireError.responseSerializationFailed(reason: .decodingFailed) {
            XCTAssertEqual(values, [Chunk(token: "a")])
        }
    }

    private struct CountingAdapter: RequestAdapter {
        let count = Recorder<Int>()
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
            count.append(1)
            var request = urlRequest
            request.setValue("connection-\(count.all.count)", forHTTPHeaderField: "X-Adapted")
            return request
        }
    }

    func testThatEveryReconnectionGoesThroughTheSessionsAdapterMonitorsAndTrust() async throws {
        let server = try MockServer(tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]))
        server.enqueue(.eventStream(events(1...2)))
        server.enqueue(.eventStream(events(3...3)))
        server.enqueue(MockResponse(statusCode: 204))
        let pinned = ServerTrustPolicyManager(policies: ["localhost": .pinCertificates(
            certificates: [try XCTUnwrap(server.certificate)], validateCertificateChain: false, validateHost: true)])
        let finished = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidFinish = { finished.append($0.request?.value(forHTTPHeaderField: "X-Adapted") ?? "-") }
        let session = SessionManager(serverTrustPolicyManager: pinned, eventMonitors: [monitor])
        session.adapter = CountingAdapter()
        let url = server.url("/feed").absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let (received, error) = await collect(session.eventStreamRequest(url, configuration: .init(reconnectionTime: 0.05)))
        XCTAssertNil(error)
        XCTAssertEqual(received.map(\.id), ["1", "2", "3"])
        XCTAssertEqual(server.takeRequest()?.header("X-Adapted"), "connection-1")
        XCTAssertEqual(server.takeRequest()?.header("X-Adapted"), "connection-2")
        XCTAssertEqual(server.takeRequest()?.header("X-Adapted"), "connection-3")
        monitor.queue.sync {}
        XCTAssertEqual(finished.all, ["connection-1", "connection-2", "connection-3"], "the monitor saw every connection")

        let stranger = try MockServer(tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]))
        stranger.enqueue(.eventStream(events(1...1)))
        let strangerURL = stranger.url("/feed").absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let (none, trustError) = await collect(session.eventStreamRequest(strangerURL, configuration: .init(reconnectionTime: 0)))
        XCTAssertTrue(none.isEmpty)
        XCTAssertTrue(trustError?.isServerTrustEvaluationError ?? false, "\(String(describing: trustError))")
        XCTAssertEqual(stranger.requestCount, 0, "refused in the handshake, and not retried")
    }

    func testThatStreamingEventsParsesAnyStreamRequest() async throws {
        let server = try MockServer()
        server.enqueue(.eventStream(events(1...3), interval: 0.01))
        var received: [ServerSentEvent] = []
        for try await event in SessionManager().streamRequest(server.url("/feed")).streamingEvents() { received.append(event) }
        XCTAssertEqual(received, events(1...3))
    }
}

/// Every event of `request`, and the error that ended it.
func collect(_ request: EventStreamRequest) async -> (events: [ServerSentEvent], error: CurlfireError?) {
    var received: [ServerSentEvent] = []
    do {
        for try await event in request.events() { received.append(event) }
        return (received, nil)
    } catch {
        return (received, error as? CurlfireError)
    }
}
