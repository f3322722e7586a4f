import Curlfire
import Foundation
import XCTest

/// WebSocket against scripts/ws-test-server.py's fault server, which breaks RFC 6455 on purpose.
/// Each test checks the typed error and the close code our client sent (from the server's log).
/// Test names carry the Autobahn category: reserved bits, opcodes, UTF-8, close, limits, pings,
/// framing; plus timeouts, back-pressure and cancellation.
final class WebSocketFaultTests: XCTestCase {
    private var server: WebSocketTestServer!

    override func setUpWithError() throws {
        server = try WebSocketTestServer.shared()
    }

    /// Connects to a fault route, collects until the end; returns the error and the id.
    private func run(_ route: String, configuration: WebSocketConfiguration = .default)
        async throws -> (error: CurlfireError?, id: String, messages: [WebSocketMessage]) {
        let session = try server.session()
        let (url, id) = server.fault(route)
        let (messages, error) = await collect(session.webSocketRequest(url, configuration: configuration))
        return (error, id, messages)
    }

    /// Asserts a protocol violation ended the connection and our close frame carried `code`.
    private func assertFailed(_ route: String, code: Int, configuration: WebSocketConfiguration = .default,
                              file: StaticString = #filePath, line: UInt = #line,
                              _ check: (CurlfireError.WebSocketFailureReason) -> Bool) async throws {
        let (error, id, _) = try await run(route, configuration: configuration)
        guard case let .webSocketFailed(reason)? = error, check(reason) else {
            return XCTFail("\(route): \(String(describing: error))", file: file, line: line)
        }
        XCTAssertEqual(reason.closeCode?.rawValue, UInt16(code), file: file, line: line)
        XCTAssertNotNil(server.waitForLine(id, containing: "close=\(code)"), "\(route): no close \(code) sent; log: \(server.lines(id))",
                        file: file, line: line)
    }

    private func isProtocolViolation(_ reason: CurlfireError.WebSocketFailureReason) -> Bool {
        if case .protocolViolation = reason { return true } else { return false }
    }

    // MARK: - Reserved bits

    func testReservedBits_rsv2Fails1002() async throws {
        try await assertFailed("/rsv2", code: 1002, isProtocolViolation)
    }

    func testReservedBits_rsv1WithoutExtensionFails1002() async throws {
        try await assertFailed("/rsv1", code: 1002, isProtocolViolation)
    }

    // MARK: - Opcodes

    func testOpcodes_reservedDataOpcodeFails1002() async throws {
        try await assertFailed("/opcode3", code: 1002, isProtocolViolation)
    }

    func testOpcodes_reservedControlOpcodeFails1002() async throws {
        try await assertFailed("/opcode11", code: 1002, isProtocolViolation)
    }

    // MARK: - Framing

    func testFraming_maskedServerFrameFails1002() async throws {
        try await assertFailed("/masked", code: 1002, isProtocolViolation)
    }

    func testFraming_nonMinimalLengthFails1002() async throws {
        try await assertFailed("/long-16bit-small", code: 1002, isProtocolViolation)
    }

    func testFraming_oversizedControlFrameFails1002() async throws {
        try await assertFailed("/big-ping", code: 1002, isProtocolViolation)
    }

    func testFraming_fragmentedControlFrameFails1002() async throws {
        try await assertFailed("/fragmented-ping", code: 1002, isProtocolViolation)
    }

    // MARK: - Fragmentation

    func testFragmentation_continuationWithoutStartFails1002() async throws {
        try await assertFailed("/continuation-first", code: 1002, isProtocolViolation)
    }

    func testFragmentation_newDataFrameInsideFragmentsFails1002() async throws {
        try await assertFailed("/data-inside-fragments", code: 1002, isProtocolViolation)
    }

    // MARK: - UTF-8

    func testUTF8_invalidTextFails1007() async throws {
        try await assertFailed("/bad-utf8", code: 1007) { $0 == .invalidUTF8 }
    }

    func testUTF8_invalidAcrossFragmentsFails1007() async throws {
        try await assertFailed("/bad-utf8-fragmented", code: 1007) { $0 == .invalidUTF8 }
    }

    // MARK: - Close

    func testClose_oneBytePayloadFails1002() async throws {
        try await assertFailed("/close-1byte", code: 1002, isProtocolViolation)
    }

    func testClose_unsendableCodeFails1002() async throws {
        try await assertFailed("/close-1005", code: 1002, isProtocolViolation)
    }

    func testClose_invalidUTF8ReasonFails1007() async throws {
        try await assertFailed("/close-bad-utf8", code: 1007) { $0 == .invalidUTF8 }
    }

    func testClose_serverThatNeverAnswersEndsWithinCloseTimeout() async throws {
        let session = try server.session()
        let (url, _) = server.fault("/never-close")
        var configuration = WebSocketConfiguration()
        configuration.closeTimeout = 0.5
        let socket = session.webSocketRequest(url, configuration: configuration)
        let started = Date()
        socket.close()
        let (_, error) = await collect(socket)
        XCTAssertEqual(error?.webSocketFailureReason, .closeTimeout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    // MARK: - Pings

    func testPings_serverThatNeverAnswersPingFailsWithinPongTimeout() async throws {
        let session = try server.session()
        let (url, _) = server.fault("/never-close")
        var configuration = WebSocketConfiguration()
        configuration.pongTimeout = 0.5
        let socket = session.webSocketRequest(url, configuration: configuration)
        let started = Date()
        do {
            _ = try await socket.ping()
            XCTFail("a ping without a pong succeeded")
        } catch CurlfireError.webSocketFailed(reason: .pongTimeout) {
        } catch { XCTFail("\(error)") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        let (_, error) = await collect(socket)
        XCTAssertNotNil(error)
    }

    // MARK: - Limits

    func testLimits_messageOverMaximumFails1009() async throws {
        var configuration = WebSocketConfiguration()
        configuration.maximumMessageSize = 1000
        try await assertFailed("/big-frame?size=5000", code: 1009, configuration: configuration) { $0 == .messageTooBig(limit: 1000) }
    }

    func testLimits_fragmentedMessageOverMaximumFails1009() async throws {
        let session = try server.session()
        var configuration = WebSocketConfiguration()
        configuration.maximumMessageSize = 100_000
        // 64 KiB frames of the flood arrive as separate messages; reassembled fragments are tested
        // with the websockets server: /big sends one 200 kB message.
        let socket = session.webSocketRequest(server.ws("/big?size=200000"), configuration: configuration)
        let (_, error) = await collect(socket)
        XCTAssertEqual(error?.webSocketFailureReason,
                       .messageTooBig(limit: 100_000))
    }

    func testLimits_outgoingMessageOverMaximumIsRefused() async throws {
        let session = try server.session()
        var configuration = WebSocketConfiguration()
        configuration.maximumMessageSize = 10
        let socket = session.webSocketRequest(server.ws("/echo"), configuration: configuration)
        do {
            try await socket.send(.binary(Data(count: 11)))
            XCTFail("an oversized message was sent")
        } catch CurlfireError.webSocketFailed(reason: .outgoingMessageTooBig(10)) {
        } catch { XCTFail("\(error)") }
        socket.close()
    }

    // MARK: - Timeouts

    func testTimeouts_unansweredUpgradeFailsWithinRequestTimeout() async throws {
        let session = try server.session { $0.timeoutIntervalForRequest = 0.5 }
        let started = Date()
        let (_, error) = await collect(session.webSocketRequest(server.fault("/no-upgrade").url))
        XCTAssertEqual(error?.transportErrorCode, .timedOut, "\(String(describing: error))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testTimeouts_pingIntervalDetectsSilentServer() async throws {
        let session = try server.session()
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = 0.1
        configuration.pongTimeout = 0.3
        let started = Date()
        let (_, error) = await collect(session.webSocketRequest(server.fault("/never-close").url, configuration: configuration))
        XCTAssertEqual(error?.webSocketFailureReason, .pongTimeout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    // MARK: - Back-pressure and cancellation

    func testBackPressure_slowConsumerPausesReading() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/flood")
        var configuration = WebSocketConfiguration()
        configuration.maximumMessageSize = 1 << 20
        let socket = session.webSocketRequest(url, configuration: configuration)
        var iterator = socket.messages().makeAsyncIterator()
        _ = try await iterator.next()
        // The consumer stops: the server's sends must stall at our buffer limit plus socket buffers.
        func sent() -> Int {
            server.lines(id).compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.max() ?? 0
        }
        var previous = -1
        var stable = 0
        let deadline = Date().addingTimeInterval(10)
        while stable < 10, Date() < deadline {
            usleep(50_000)
            let now = sent()
            stable = now == previous ? stable + 1 : 0
            previous = now
        }
        XCTAssertEqual(stable, 10, "the server kept sending: \(previous) bytes")
        XCTAssertLessThan(previous, 16 << 20, "far more than the 1 MiB buffer limit was read: \(previous) bytes")
        // Consuming resumes reading.
        for _ in 0..<64 { _ = try await iterator.next() }
        XCTAssertGreaterThan(sent(), previous)
        print("WebSocketFaultTests: flood stalled at \(previous) bytes sent with a 1 MiB buffer limit")
        socket.cancel()
    }

    func testCancellation_cancellingConsumingTaskClosesConnection() async throws {
        let session = try server.session()
        let (url, id) = server.fault("/echo-raw")
        let socket = session.webSocketRequest(url)
        let consumer = Task { await collect(socket) }
        try await socket.send(.text("before cancel"))
        _ = server.waitForLine(id, containing: "opcode=1")
        consumer.cancel()
        let (_, error) = await consumer.value
        XCTAssertNil(error, "a cancelled consumer's sequence ends")
        XCTAssertNotNil(server.waitForLine(id, containing: "close=1001"), "going away sent: \(server.lines(id))")
    }

    func testCancellation_cancelEndsWithExplicitlyCancelled() async throws {
        let session = try server.session()
        let socket = session.webSocketRequest(server.ws("/echo")).resume()
        socket.cancel()
        let (_, error) = await collect(socket)
        XCTAssertTrue(error?.isExplicitlyCancelledError ?? false, "\(String(describing: error))")
    }
}
