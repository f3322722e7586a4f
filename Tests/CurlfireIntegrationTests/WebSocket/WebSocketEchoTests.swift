import Curlfire
import Foundation
import XCTest

/// WebSocket against the `websockets` server from PyPI: the handshake, echo of text and binary,
/// fragmentation both ways, pings, the close handshake from either side, subprotocols, events,
/// permessage-deflate. Test names carry the Autobahn category they exercise.
final class WebSocketEchoTests: XCTestCase {
    private var server: WebSocketTestServer!

    override func setUpWithError() throws {
        server = try WebSocketTestServer.shared()
    }

    // MARK: - Handshake

    func testHandshake_upgradeResponseTimelineAndMetrics() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo"))
        try await socket.send(.text("hello"))
        let (messages, error) = await collect(socket, limit: 1)
        XCTAssertNil(error)
        XCTAssertEqual(messages, [.text("hello")])
        XCTAssertEqual(socket.response?.statusCode, 101)
        XCTAssertEqual(socket.response?.value(forHTTPHeaderField: "Upgrade")?.lowercased(), "websocket")
        XCTAssertGreaterThan(socket.timeline.latency, 0)
        let metrics = try XCTUnwrap(socket.metrics)
        XCTAssertEqual(metrics.httpVersion, "HTTP/1.1")
        XCTAssertEqual(metrics.remotePort, server.ws)
        XCTAssertGreaterThan(metrics.bytesSent, 100)
        socket.close()
    }

    func testHandshake_subprotocolNegotiatedAndHeadersSent() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/info"), protocols: ["chat.v3", "chat.v1"],
                                              headers: ["X-Curlfire-Test": "ws"])
        let (messages, error) = await collect(socket, limit: 1)
        XCTAssertNil(error)
        guard case let .text(json)? = messages.first,
              let info = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let headers = info["headers"] as? [String: String] else {
            return XCTFail("no info message: \(messages)")
        }
        XCTAssertEqual(info["subprotocol"] as? String, "chat.v1")
        XCTAssertEqual(socket.negotiatedProtocol, "chat.v1")
        XCTAssertEqual(headers["X-Curlfire-Test"], "ws")
        XCTAssertEqual(headers["Sec-WebSocket-Version"], "13")
        XCTAssertNil(headers["Sec-WebSocket-Extensions"], "permessage-deflate is off by default")
        socket.close()
    }

    func testHandshake_rejectedUpgradeIsTypedError() async throws {
        let session = try server.session()
        let (_, error) = await collect(session.webSocketRequest(server.fault("/reject").url))
        guard case .webSocketFailed(.upgradeRejected(403))? = error else { return XCTFail("\(String(describing: error))") }
    }

    func testHandshake_wrongAcceptAndUnofferedProtocolFail() async throws {
        let session = try server.session()
        let (_, wrongAccept) = await collect(session.webSocketRequest(server.fault("/bad-accept").url))
        guard case .webSocketFailed(.invalidHandshake)? = wrongAccept else { return XCTFail("\(String(describing: wrongAccept))") }
        let (_, unoffered) = await collect(session.webSocketRequest(server.fault("/unoffered-protocol").url, protocols: ["a"]))
        guard case .webSocketFailed(.invalidHandshake)? = unoffered else { return XCTFail("\(String(describing: unoffered))") }
    }

    func testHandshake_connectionRefusedIsTransportError() async throws {
        let session = try server.session()
        let (_, error) = await collect(session.webSocketRequest("ws://127.0.0.1:1/echo"))
        XCTAssertEqual(error?.transportErrorCode, .cannotConnect)
    }

    func testHandshake_unsupportedSchemeFailsWithoutConnecting() async throws {
        let session = try server.session()
        let (_, error) = await collect(session.webSocketRequest("ftp://127.0.0.1/echo"))
        guard case .webSocketFailed(.unsupportedScheme("ftp"))? = error else { return XCTFail("\(String(describing: error))") }
    }

    // MARK: - Framing

    func testFraming_textAndBinaryEchoOfManySizes() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo"))
        let sizes = [0, 1, 125, 126, 127, 65_535, 65_536, 1 << 20]
        for size in sizes {
            try await socket.send(.binary(Data((0..<size).map { UInt8($0 % 251) })))
            try await socket.send(.text(String(repeating: "é", count: size / 2)))
        }
        let (messages, error) = await collect(socket, limit: sizes.count * 2)
        XCTAssertNil(error)
        XCTAssertEqual(messages.count, sizes.count * 2)
        for (index, size) in sizes.enumerated() {
            XCTAssertEqual(messages[index * 2], .binary(Data((0..<size).map { UInt8($0 % 251) })), "binary \(size)")
            XCTAssertEqual(messages[index * 2 + 1], .text(String(repeating: "é", count: size / 2)), "text \(size)")
        }
        socket.close()
    }

    func testFraming_clientFramesAreMasked() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/echo-raw")
        let socket = session.webSocketRequest(url)
        try await socket.send(.text("masked?"))
        let (messages, _) = await collect(socket, limit: 1)
        XCTAssertEqual(messages, [.text("masked?")])
        let line = server.waitForLine(id, containing: "client frame opcode=1")
        XCTAssertNotNil(line?.range(of: "masked=1"), line ?? "no frame logged")
        socket.close()
    }

    // MARK: - Fragmentation

    func testFragmentation_receivedFragmentsAreJoined() async throws {
        let session = try server.session()
        let (messages, _) = await collect(session.webSocketRequest(server.ws("/fragmented")), limit: 2)
        XCTAssertEqual(messages, [.text("Hello, world"), .binary(Data([1, 2, 3]))])
    }

    func testFragmentation_controlFramesBetweenFragments() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/fragments-with-ping")
        let socket = session.webSocketRequest(url)
        let (messages, _) = await collect(socket, limit: 1)
        XCTAssertEqual(messages, [.text("Hello, world")])
        XCTAssertNotNil(server.waitForLine(id, containing: "opcode=10"), "the ping between fragments was answered")
        socket.close()
    }

    func testFragmentation_sentMessagesAreFragmentedAtMaximumFrameSize() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/echo-raw")
        var configuration = WebSocketConfiguration()
        configuration.maximumFrameSize = 1000
        let socket = session.webSocketRequest(url, configuration: configuration)
        let payload = Data((0..<2500).map { UInt8($0 % 256) })
        try await socket.send(.binary(payload))
        // The raw echo sends the three frames back as they came: our side joins them again.
        let (messages, _) = await collect(socket, limit: 1)
        XCTAssertEqual(messages, [.binary(payload)])
        let frames = server.lines(id).filter { $0.contains("client frame") && !$0.contains("opcode=8") }
        XCTAssertEqual(frames.count, 3, "\(frames)")
        XCTAssertTrue(frames[0].contains("opcode=2 fin=0") && frames[0].contains("len=1000"), frames[0])
        XCTAssertTrue(frames[1].contains("opcode=0 fin=0"), frames[1])
        XCTAssertTrue(frames[2].contains("opcode=0 fin=1") && frames[2].contains("len=500"), frames[2])
        socket.close()
    }

    // MARK: - Pings

    func testPings_pingReturnsRoundTripTime() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo"))
        let rtt = try await socket.ping()
        XCTAssertGreaterThan(rtt, 0)
        XCTAssertLessThan(rtt, 5)
        socket.close()
    }

    func testPings_serverPingIsAnsweredAutomatically() async throws {
        let session = try server.session()
        let (messages, _) = await collect(session.webSocketRequest(server.ws("/server-ping")), limit: 1)
        XCTAssertEqual(messages, [.text("pong received")])
    }

    func testPings_pingIntervalKeepsPinging() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/echo-raw")
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = 0.05
        let socket = session.webSocketRequest(url, configuration: configuration).resume()
        XCTAssertNotNil(server.waitForLine(id, containing: "opcode=9"))
        let pingsSoFar = { self.server.lines(id).filter { $0.contains("opcode=9") }.count }
        let deadline = Date().addingTimeInterval(5)
        while pingsSoFar() < 3, Date() < deadline { usleep(20_000) }
        XCTAssertGreaterThanOrEqual(pingsSoFar(), 3)
        socket.close()
    }

    // MARK: - Close

    func testClose_clientInitiatedHandshakeEndsSequence() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo"))
        try await socket.send(.text("one"))
        var received: [WebSocketMessage] = []
        for try await message in socket.messages() {
            received.append(message)
            socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "bye")
        }
        XCTAssertEqual(received, [.text("one")])
        XCTAssertEqual(socket.closeCode, WebSocketCloseCode(rawValue: 4000), "the server echoes our code")
        XCTAssertNil(socket.error)
        do {
            try await socket.send(.text("after close"))
            XCTFail("send after close succeeded")
        } catch CurlfireError.webSocketFailed(reason: .notConnected) {
        } catch { XCTFail("\(error)") }
    }

    func testClose_serverInitiatedWithCodeAndReason() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/close?code=4001&reason=server%20says%20bye"))
        let (messages, error) = await collect(socket)
        XCTAssertEqual(messages, [])
        XCTAssertNil(error)
        XCTAssertEqual(socket.closeCode, WebSocketCloseCode(rawValue: 4001))
        XCTAssertEqual(socket.closeReason, "server says bye")
    }

    func testClose_emptyCloseFrameIs1005() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/close-empty")
        let socket = session.webSocketRequest(url)
        let (_, error) = await collect(socket)
        XCTAssertNil(error)
        XCTAssertEqual(socket.closeCode, .noStatusReceived)
        XCTAssertNotNil(server.waitForLine(id, containing: "opcode=8 fin=1 rsv=0 masked=1 len=0"), "empty close echoed")
    }

    // MARK: - Events

    func testEvents_connectedMessagesDisconnectedCompletedInOrder() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo"), protocols: ["chat.v2"])
        let events = LockedEvents()
        let done = ResponseWaiter<Void>()
        socket.streamMessageEvents { event in
            events.append(event)
            switch event {
            case .connected: Task { try await socket.send(.text("event")) }
            case .receivedMessage: socket.close(code: .normalClosure, reason: "done")
            case .completed: done.fulfil(())
            case .disconnected: break
            }
        }
        await done.value
        let names = events.all.map { event -> String in
            switch event {
            case let .connected(name): return "connected(\(name ?? "nil"))"
            case let .receivedMessage(message): return "message(\(message))"
            case let .disconnected(code, _): return "disconnected(\(code))"
            case let .completed(result): return (try? result.get()) != nil ? "completed" : "failed"
            }
        }
        XCTAssertEqual(names, ["connected(chat.v2)", "message(text(\"event\"))", "disconnected(1000)", "completed"])
    }

    func testEvents_handlerKeepsConnectionWithoutStoredRequest() async throws {
        let session = try server.session()
        let done = ResponseWaiter<[String]>()
        let events = LockedEvents()
        // Nothing holds the request but its handler, until the server closes.
        session.webSocketRequest(server.ws("/fragmented?then-close=1")).streamMessageEvents { event in
            events.append(event)
            if case .completed = event { done.fulfil([]) }
        }
        _ = await done.value
        guard case .completed(.success)? = events.all.last else { return XCTFail("\(events.all)") }
        let received = events.all.compactMap { event -> WebSocketMessage? in
            if case let .receivedMessage(message) = event { return message } else { return nil }
        }
        XCTAssertEqual(received, [.text("Hello, world"), .binary(Data([1, 2, 3]))])
    }

    func testEvents_secondConsumerIsRefused() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo"))
        _ = socket.messages()
        let (_, error) = await collect(socket)
        guard case .webSocketFailed(.alreadyConsumed)? = error else { return XCTFail("\(String(describing: error))") }
        socket.cancel()
    }

    // MARK: - Compression

    func testCompression_permessageDeflateNegotiatedAndRoundTrips() async throws {
        let session = try server.session()
        var configuration = WebSocketConfiguration()
        configuration.permessageDeflate = true
        let socket = session.webSocketRequest(server.ws("/compressible?size=200000"), configuration: configuration)
        let text = String(repeating: "compress me ", count: 10_000)
        try await socket.send(.text(text))
        try await socket.send(.binary(Data(repeating: 7, count: 100_000)))
        try await socket.send(.text("small"))
        let (messages, error) = await collect(socket, limit: 4)
        XCTAssertNil(error)
        XCTAssertEqual(messages.count, 4)
        XCTAssertEqual(messages.first?.byteCount, 200_000)
        XCTAssertEqual(Array(messages.dropFirst()), [.text(text), .binary(Data(repeating: 7, count: 100_000)), .text("small")])
        let extensions = socket.response?.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") ?? ""
        XCTAssertTrue(extensions.contains("permessage-deflate"), extensions)
        socket.close()
    }

    // MARK: - Module level

    func testModuleLevelWebSocketRequestUsesDefaultSession() async throws {
        let socket = Curlfire.webSocketRequest(server.ws("/echo"))
        try await socket.send(.binary(Data([1, 2, 3])))
        let (messages, _) = await collect(socket, limit: 1)
        XCTAssertEqual(messages, [.binary(Data([1, 2, 3]))])
        socket.close()
    }
}

/// Events collected from a callback queue.
final class LockedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [WebSocketEvent] = []
    func append(_ event: WebSocketEvent) { lock.withLock { events.append(event) } }
    var all: [WebSocketEvent] { lock.withLock { events } }
}
