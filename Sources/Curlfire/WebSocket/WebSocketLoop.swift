import Foundation
import FoundationNetworking
import Glibc

/// The connection's thread: connect, upgrade, then frames until the connection ends. Everything
/// here runs on that one thread; other threads reach it only through ``WebSocketConnection``'s
/// commands and wake-up descriptor.
final class WebSocketLoop {
    private let connection: WebSocketConnection
    private let plan: AttemptPlan
    private let handshake: WebSocketHandshake
    private var configuration: WebSocketConfiguration { connection.configuration }

    private var transport: WebSocketTransport?
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private var deflater: WebSocketDeflater?

    /// Bytes to send, from `outboundStart`; `outboundBase` counts what was sent before index 0.
    private var outbound: [UInt8] = []
    private var outboundStart = 0
    private var outboundBase = 0
    /// Sends waiting for their last byte to leave: (absolute end offset, continuation).
    private var sendWaiters: [(end: Int, continuation: CheckedContinuation<Void, Error>)] = []
    /// Pings waiting for their pong, by payload.
    private var pings: [[UInt8]: (sent: UInt64, continuation: CheckedContinuation<TimeInterval, Error>?)] = [:]
    private var pingCounter: UInt64 = 0
    private var nextAutomaticPing: UInt64?

    private enum Phase {
        case open
        /// We sent a close frame and wait for the server's until the deadline.
        case closeSent(deadline: UInt64)
        /// The close handshake is over; the socket closes once the outbound bytes are sent.
        case done(WebSocketEnding)
    }
    private var phase = Phase.open
    private var receiveBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(connection: WebSocketConnection, plan: AttemptPlan, handshake: WebSocketHandshake) {
        self.connection = connection
        self.plan = plan
        self.handshake = handshake
        decoder = WebSocketFrameDecoder(maximumPayload: connection.configuration.maximumMessageSize)
        assembler = WebSocketMessageAssembler(maximumMessageSize: connection.configuration.maximumMessageSize)
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64 { UInt64(max(seconds, 0) * 1e9) }

    // MARK: - Run

    func run() {
        let ending = connectAndLoop()
        transport = nil // closes the socket (curl_easy_cleanup)
        let pending = pings.values.compactMap(\.continuation).map { WebSocketConnection.Command.ping($0) }
            + sendWaiters.map { WebSocketConnection.Command.send(.binary(Data()), $0.continuation) }
        pings = [:]
        sendWaiters = []
        connection.finish(ending, pending: pending)
    }

    private func connectAndLoop() -> WebSocketEnding {
        let startDate = Date()
        let start = Date.timeIntervalSinceReferenceDate
        guard let transport = WebSocketTransport(plan: plan, cancelled: connection.cancelRequested) else {
            return .failed(.sessionTaskFailed(code: .other(curlCode: 2), message: "curl_easy_init failed"))
        }
        self.transport = transport
        if let error = transport.connect() { return .failed(error) }
        switch upgrade(transport) {
        case let .failure(error): return .failed(error)
        case let .success((head, agreement, headBytes, requestBytes)):
            let responded = Date.timeIntervalSinceReferenceDate
            var metrics = transport.metrics(startDate: startDate)
            metrics.effectiveURL = connection.url
            metrics.httpVersion = head.httpVersion
            metrics.firstByteDuration = responded - start
            metrics.totalDuration = responded - start
            metrics.bytesSent = Int64(requestBytes)
            metrics.bytesReceived = Int64(headBytes)
            let response = head.response(for: connection.url ?? plan.request.url ?? URL(fileURLWithPath: "/"))
            connection.shared.withLock { state in
                state.response = response
                state.metrics = metrics
                state.subprotocol = agreement.subprotocol
                state.timeline = Timeline(requestStartTime: start, initialResponseTime: responded,
                                          requestCompletedTime: responded, serializationCompletedTime: responded)
            }
            if let deflate = agreement.deflate {
                decoder.allowsRSV1 = true
                assembler.inflater = WebSocketInflater(resetsEachMessage: deflate.serverNoContextTakeover)
                deflater = WebSocketDeflater(parameters: deflate)
            }
            connection.inbox.connected(protocol: agreement.subprotocol)
        }
        if let interval = configuration.pingInterval, interval > 0 { nextAutomaticPing = Self.now() + Self.nanoseconds(interval) }
        return loop(transport)
    }

    // MARK: - Opening handshake

    private func upgrade(_ transport: WebSocketTransport)
        -> Result<(WebSocketResponseHead, WebSocketHandshake.Agreement, Int, Int), CurlfireError> {
        let request: [UInt8]
        do { request = try handshake.requestBytes() } catch { return .failure(error) }
        let deadline = Self.now() + Self.nanoseconds(plan.options.requestTimeout)
        outbound = request
        while outboundStart < outbound.count {
            if let error = flush(transport) { return .failure(error) }
            if outboundStart < outbound.count, let error = wait(transport, writable: true, until: deadline) {
                return .failure(error)
            }
        }
        var received: [UInt8] = []
        while true {
            switch receiveOnce(transport) {
            case let .failed(error): return .failure(error)
            case .moved(0):
                return .failure(.sessionTaskFailed(code: .badServerResponse, message: "the server closed the connection during the upgrade"))
            case let .moved(count):
                received.append(contentsOf: receiveBuffer[0..<count])
                if let end = WebSocketResponseHead.endOfHead(in: received) {
                    guard let head = WebSocketResponseHead(received[0..<end]) else {
                        return .failure(.sessionTaskFailed(code: .badServerResponse, message: "the upgrade response is not HTTP/1.1"))
                    }
                    do {
                        let agreement = try handshake.validate(head)
                        decoder.append(received[end...])
                        return .success((head, agreement, end, request.count))
                    } catch {
                        return .failure(error)
                    }
                }
                if received.count > WebSocketResponseHead.maximumSize {
                    return .failure(.sessionTaskFailed(code: .badServerResponse, message: "the upgrade response head is too large"))
                }
            case .wouldBlock:
                if let error = wait(transport, writable: false, until: deadline) { return .failure(error) }
            }
        }
    }

    private func receiveOnce(_ transport: WebSocketTransport) -> WebSocketTransport.IOResult {
        receiveBuffer.withUnsafeMutableBytes { transport.receive(into: $0) }
    }

    /// Waits for the socket during the upgrade; a timeout or a cancel is an error.
    private func wait(_ transport: WebSocketTransport, writable: Bool, until deadline: UInt64) -> CurlfireError? {
        let now = Self.now()
        if connection.cancelRequested.withLock({ $0 }) { return .explicitlyCancelled }
        guard now < deadline else {
            return .sessionTaskFailed(code: .timedOut, message: "no upgrade response within \(String(format: "%g", plan.options.requestTimeout)) s")
        }
        var fds = [pollfd(fd: transport.socket, events: Int16(writable ? POLLOUT : POLLIN), revents: 0),
                   pollfd(fd: connection.wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, Int32(min((deadline - now) / 1_000_000 + 1, 1000)))
        drainWake()
        return nil
    }

    private func drainWake() {
        connection.wakePipe.drain()
    }

    // MARK: - Frames

    private func loop(_ transport: WebSocketTransport) -> WebSocketEnding {
        // Frames that came in the same read as the upgrade response.
        if let ending = handleFrames() {
            flushBriefly(transport)
            return ending
        }
        while true {
            if connection.cancelRequested.withLock({ $0 }) { return .failed(.explicitlyCancelled) }
            for command in connection.takeCommands() { perform(command) }
            if let error = flush(transport) { return .failed(error) }
            if case let .done(ending) = phase, outboundStart == outbound.count { return ending }
            if let ending = readAvailable(transport) {
                // A failure after our close frame is queued: send it, best effort, then end.
                if case .failed = ending { flushBriefly(transport) }
                return ending
            }
            if case let .done(ending) = phase, outboundStart == outbound.count { return ending }
            if let ending = checkTimers() { return ending }
            waitForEvents(transport)
        }
    }

    private func perform(_ command: WebSocketConnection.Command) {
        switch command {
        case let .send(message, continuation):
            guard case .open = phase else {
                continuation.resume(throwing: CurlfireError.webSocketFailed(reason: .notConnected))
                return
            }
            guard message.byteCount <= configuration.maximumMessageSize else {
                continuation.resume(throwing: CurlfireError.webSocketFailed(reason: .outgoingMessageTooBig(limit: configuration.maximumMessageSize)))
                return
            }
            enqueueMessage(message)
            sendWaiters.append((outboundBase + outbound.count, continuation))
        case let .ping(continuation):
            guard case .open = phase else {
                continuation.resume(throwing: CurlfireError.webSocketFailed(reason: .notConnected))
                return
            }
            sendPing(continuation)
        case let .close(code, reason):
            guard case .open = phase else { return }
            startClose(code: code, reason: reason)
        }
    }

    private func maskingKey() -> (UInt8, UInt8, UInt8, UInt8) {
        let value = UInt32.random(in: .min ... .max)
        return (UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }

    private func enqueueMessage(_ message: WebSocketMessage) {
        let opcode: WebSocketOpcode
        var payload: [UInt8]
        switch message {
        case let .text(text): opcode = .text; payload = Array(text.utf8)
        case let .binary(data): opcode = .binary; payload = Array(data)
        }
        var compressed = false
        if let deflater, let deflated = deflater.deflate(payload) {
            payload = deflated
            compressed = true
        }
        let frameSize = max(configuration.maximumFrameSize, 1)
        var offset = 0
        var first = true
        repeat {
            let end = min(offset + frameSize, payload.count)
            WebSocketFrameEncoder.encode(fin: end == payload.count, rsv1: first && compressed,
                                         opcode: first ? opcode : .continuation, payload: payload[offset..<end],
                                         maskingKey: maskingKey(), into: &outbound)
            offset = end
            first = false
        } while offset < payload.count
    }

    private func enqueueControl(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        WebSocketFrameEncoder.encode(fin: true, rsv1: false, opcode: opcode, payload: payload[...],
                                     maskingKey: maskingKey(), into: &outbound)
    }

    private func sendPing(_ continuation: CheckedContinuation<TimeInterval, Error>?) {
        pingCounter += 1
        var payload: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { payload.append(UInt8((pingCounter >> UInt64(shift)) & 0xFF)) }
        pings[payload] = (Self.now(), continuation)
        enqueueControl(.ping, payload)
    }

    private func closePayload(_ code: WebSocketCloseCode, _ reason: String) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        // A control frame carries at most 125 bytes: the reason is cut at a character boundary.
        var reasonBytes = 0
        for character in reason {
            let size = String(character).utf8.count
            if reasonBytes + size > 123 { break }
            payload.append(contentsOf: String(character).utf8)
            reasonBytes += size
        }
        return payload
    }

    private func startClose(code: WebSocketCloseCode, reason: String) {
        let sendable = code.isSendable ? code : .normalClosure
        enqueueControl(.close, closePayload(sendable, reason))
        phase = .closeSent(deadline: Self.now() + Self.nanoseconds(configuration.closeTimeout))
    }

    /// Fails the connection for a rule the server broke: our close frame with the rule's code, then the end.
    private func violate(_ violation: WebSocketViolation) -> WebSocketEnding {
        if case .open = phase { enqueueControl(.close, closePayload(violation.code, "")) }
        let ending = WebSocketEnding.failed(.webSocketFailed(reason: violation.failure(limit: configuration.maximumMessageSize)))
        phase = .done(ending)
        return ending
    }

    /// Reads and handles whatever arrived, unless the consumer is behind. Returns the ending when
    /// the connection is over.
    private func readAvailable(_ transport: WebSocketTransport) -> WebSocketEnding? {
        while !connection.inbox.shouldPauseReading() {
            switch receiveOnce(transport) {
            case .wouldBlock: return nil
            case let .failed(error): return .failed(error)
            case .moved(0):
                // The peer closed TCP: after the close handshake that is the normal end.
                if case let .done(ending) = phase { return ending }
                return .failed(.webSocketFailed(reason: .connectionClosedAbnormally))
            case let .moved(count):
                decoder.append(receiveBuffer[0..<count])
                if let ending = handleFrames() { return ending }
            }
        }
        return nil
    }

    private func handleFrames() -> WebSocketEnding? {
        while true {
            if case .done = phase { return nil } // after the close handshake, nothing more is read
            let incoming: WebSocketIncoming?
            do {
                guard let frame = try decoder.next() else { return nil }
                incoming = try assembler.consume(frame)
            } catch {
                return violate(error)
            }
            guard let incoming else { continue }
            switch incoming {
            case let .message(message):
                // Messages still arrive after our close frame, until the server's.
                connection.inbox.deliver(message)
            case let .ping(payload):
                if configuration.automaticallyRespondsToPings, case .open = phase { enqueueControl(.pong, payload) }
            case let .pong(payload):
                if let ping = pings.removeValue(forKey: payload) {
                    ping.continuation?.resume(returning: TimeInterval(Self.now() - ping.sent) / 1e9)
                }
            case let .close(code, reason):
                let received = WebSocketEnding.closed(code: code ?? .noStatusReceived, reason: reason)
                if case .open = phase {
                    // The server closes: echo its code (RFC 6455 section 5.5.1), then the socket closes.
                    enqueueControl(.close, code.map { closePayload($0, "") } ?? [])
                }
                phase = .done(received)
                return nil
            }
        }
    }

    private func checkTimers() -> WebSocketEnding? {
        let now = Self.now()
        if case let .closeSent(deadline) = phase, now >= deadline {
            return .failed(.webSocketFailed(reason: .closeTimeout))
        }
        let pongTimeout = Self.nanoseconds(configuration.pongTimeout)
        if pings.values.contains(where: { now >= $0.sent + pongTimeout }) {
            return .failed(.webSocketFailed(reason: .pongTimeout))
        }
        if let next = nextAutomaticPing, now >= next, case .open = phase {
            sendPing(nil)
            nextAutomaticPing = now + Self.nanoseconds(configuration.pingInterval ?? 0)
        }
        return nil
    }

    /// Milliseconds until the next timer, -1 for none.
    private func pollTimeout() -> Int32 {
        var deadlines: [UInt64] = []
        if case let .closeSent(deadline) = phase { deadlines.append(deadline) }
        let pongTimeout = Self.nanoseconds(configuration.pongTimeout)
        deadlines.append(contentsOf: pings.values.map { $0.sent + pongTimeout })
        if let next = nextAutomaticPing { deadlines.append(next) }
        guard let earliest = deadlines.min() else { return -1 }
        let now = Self.now()
        return earliest <= now ? 0 : Int32(min((earliest - now) / 1_000_000 + 1, 60_000))
    }

    private func waitForEvents(_ transport: WebSocketTransport) {
        var events: Int32 = 0
        if !connection.inbox.shouldPauseReading() { events |= Int32(POLLIN) }
        if outboundStart < outbound.count { events |= Int32(POLLOUT) }
        var fds = [pollfd(fd: transport.socket, events: Int16(events), revents: 0),
                   pollfd(fd: connection.wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, pollTimeout())
        if fds[1].revents != 0 { drainWake() }
    }

    // MARK: - Sending

    /// Sends what the socket takes; resumes the sends whose bytes all left.
    private func flush(_ transport: WebSocketTransport) -> CurlfireError? {
        while outboundStart < outbound.count {
            let result = outbound.withUnsafeBytes { raw in
                transport.send(UnsafeRawBufferPointer(rebasing: raw[outboundStart...]))
            }
            switch result {
            case let .moved(count): outboundStart += count
            case .wouldBlock: break
            case let .failed(error): return error
            }
            if case .wouldBlock = result { break }
        }
        let sent = outboundBase + outboundStart
        while let first = sendWaiters.first, first.end <= sent {
            sendWaiters.removeFirst()
            first.continuation.resume()
        }
        if outboundStart == outbound.count {
            outboundBase += outbound.count
            outbound.removeAll(keepingCapacity: outbound.capacity <= 4 << 20)
            outboundStart = 0
        }
        return nil
    }

    /// After a failure: gives our close frame up to 200 ms to leave.
    private func flushBriefly(_ transport: WebSocketTransport) {
        let deadline = Self.now() + 200_000_000
        while outboundStart < outbound.count, Self.now() < deadline {
            if flush(transport) != nil { return }
            if outboundStart < outbound.count {
                var fds = [pollfd(fd: transport.socket, events: Int16(POLLOUT), revents: 0)]
                _ = poll(&fds, 1, 50)
            }
        }
    }
}
