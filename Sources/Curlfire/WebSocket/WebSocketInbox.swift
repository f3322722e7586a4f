import Foundation

/// How a WebSocket connection ended.
enum WebSocketEnding: Sendable {
    /// A close handshake: the peer's code (1005 when its close frame had none) and reason.
    case closed(code: WebSocketCloseCode, reason: String)
    /// A failure.
    case failed(CurlfireError)
}

/// Received messages on their way to the one consumer — the ``WebSocketMessages`` sequence or the
/// event handler — with the bytes they hold counted, so the connection stops reading while the
/// consumer is behind (back-pressure), and the connection's own events.
///
/// Thread-safe: the connection's thread delivers, consumers take; one lock, and continuations and
/// handlers are resumed or dispatched outside it.
final class WebSocketInbox: Sendable {
    typealias Waiter = CheckedContinuation<Result<WebSocketMessage?, CurlfireError>, Never>
    typealias EventHandler = @Sendable (WebSocketEvent) -> Void

    private enum Consumer {
        case none
        case sequence
        case events(DispatchQueue, EventHandler)
        /// An event handler that was given the ending: released, since a handler that captures its
        /// own request (`socket.streamMessageEvents { … socket.send(…) }`) would otherwise keep the
        /// connection, its inbox and itself alive forever.
        case eventsEnded
    }

    private struct State {
        var messages: [WebSocketMessage] = []
        var head = 0
        var bufferedBytes = 0
        var connected: String?? = .none
        var ending: WebSocketEnding?
        var waiter: Waiter?
        var consumer = Consumer.none
        var consumerCancelled = false
        var paused = false
    }

    private let state = LockedValue(State())
    /// Above this many buffered bytes the connection stops reading.
    let highWater: Int
    /// Called (outside the lock) when the consumer took enough to resume reading.
    private let resume: @Sendable () -> Void

    init(highWater: Int, resume: @escaping @Sendable () -> Void) {
        self.highWater = highWater
        self.resume = resume
    }

    // MARK: - Connection side

    /// Whether the consumer is so far behind that the connection should not read; remembers that
    /// reading paused, so taking a message below the mark wakes the connection.
    func shouldPauseReading() -> Bool {
        state.withLock { state in
            state.paused = state.bufferedBytes >= highWater
            return state.paused
        }
    }

    /// The upgrade succeeded.
    func connected(protocol subprotocol: String?) {
        let target: (DispatchQueue, EventHandler)? = state.withLock { state in
            state.connected = .some(subprotocol)
            if case let .events(queue, handler) = state.consumer { return (queue, handler) }
            return nil
        }
        if let (queue, handler) = target { queue.async { handler(.connected(protocol: subprotocol)) } }
    }

    /// A message arrived.
    func deliver(_ message: WebSocketMessage) {
        let size = message.byteCount
        enum Route { case waiter(Waiter), events(DispatchQueue, EventHandler), queued }
        let route: Route = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return .waiter(waiter)
            }
            state.bufferedBytes += size
            if case let .events(queue, handler) = state.consumer { return .events(queue, handler) }
            state.messages.append(message)
            return .queued
        }
        switch route {
        case let .waiter(waiter): waiter.resume(returning: .success(message))
        case let .events(queue, handler): dispatch(message, size: size, queue: queue, handler: handler)
        case .queued: break
        }
    }

    /// The connection ended (once).
    func finish(_ ending: WebSocketEnding) {
        let (waiter, target): (Waiter?, (DispatchQueue, EventHandler)?) = state.withLock { state in
            guard state.ending == nil else { return (nil, nil) }
            state.ending = ending
            let waiter = state.waiter
            state.waiter = nil
            if case let .events(queue, handler) = state.consumer {
                state.consumer = .eventsEnded
                return (waiter, (queue, handler))
            }
            return (waiter, nil)
        }
        waiter?.resume(returning: Self.result(of: ending))
        if let (queue, handler) = target { queue.async { Self.emitEnding(ending, handler) } }
    }

    private static func result(of ending: WebSocketEnding) -> Result<WebSocketMessage?, CurlfireError> {
        switch ending {
        case .closed: return .success(nil)
        case let .failed(error): return .failure(error)
        }
    }

    private static func emitEnding(_ ending: WebSocketEnding, _ handler: EventHandler) {
        switch ending {
        case let .closed(code, reason):
            handler(.disconnected(closeCode: code, reason: reason))
            handler(.completed(.success(())))
        case let .failed(error):
            handler(.completed(.failure(error)))
        }
    }

    private func dispatch(_ message: WebSocketMessage, size: Int, queue: DispatchQueue, handler: @escaping EventHandler) {
        queue.async {
            handler(.receivedMessage(message))
            self.consumed(size)
        }
    }

    private func consumed(_ size: Int) {
        let wake: Bool = state.withLock { state in
            state.bufferedBytes -= size
            if state.paused, state.bufferedBytes < highWater / 2 {
                state.paused = false
                return true
            }
            return false
        }
        if wake { resume() }
    }

    // MARK: - Consumer side

    /// Makes the sequence the consumer; `false` if another consumer came first.
    func claimSequence() -> Bool {
        state.withLock { state in
            guard case .none = state.consumer else { return false }
            state.consumer = .sequence
            return true
        }
    }

    /// Makes an event handler the consumer: replays `connected`, the queued messages and the
    /// ending if they happened already. `false` if another consumer came first.
    func claimEvents(queue: DispatchQueue, handler: @escaping EventHandler) -> Bool {
        let claimed: (connected: String??, messages: [WebSocketMessage], ending: WebSocketEnding?)? = state.withLock { state in
            guard case .none = state.consumer else { return nil }
            state.consumer = state.ending == nil ? .events(queue, handler) : .eventsEnded
            let messages = Array(state.messages[state.head...])
            state.messages = []
            state.head = 0
            return (state.connected, messages, state.ending)
        }
        guard let claimed else { return false }
        queue.async {
            if case let .some(subprotocol) = claimed.connected { handler(.connected(protocol: subprotocol)) }
        }
        for message in claimed.messages { dispatch(message, size: message.byteCount, queue: queue, handler: handler) }
        if let ending = claimed.ending { queue.async { Self.emitEnding(ending, handler) } }
        return true
    }

    /// The next message, `nil` at the end; a cancelled consumer gets `nil` at once.
    func next() async -> Result<WebSocketMessage?, CurlfireError> {
        await withCheckedContinuation { (continuation: Waiter) in
            let immediate: Result<WebSocketMessage?, CurlfireError>? = state.withLock { state in
                if state.consumerCancelled { return .success(nil) }
                if state.head < state.messages.count {
                    let message = state.messages[state.head]
                    state.head += 1
                    if state.head == state.messages.count {
                        state.messages.removeAll(keepingCapacity: true)
                        state.head = 0
                    } else if state.head >= 1024 {
                        state.messages.removeFirst(state.head)
                        state.head = 0
                    }
                    state.bufferedBytes -= message.byteCount
                    return .success(message)
                }
                if let ending = state.ending { return Self.result(of: ending) }
                state.waiter = continuation
                return nil
            }
            guard let immediate else { return }
            continuation.resume(returning: immediate)
            wakeIfDrained()
        }
    }

    private func wakeIfDrained() {
        let wake: Bool = state.withLock { state in
            if state.paused, state.bufferedBytes < highWater / 2 {
                state.paused = false
                return true
            }
            return false
        }
        if wake { resume() }
    }

    /// The consuming task was cancelled: its pending `next()` returns `nil`, and so does every later one.
    func cancelConsumer() {
        let waiter: Waiter? = state.withLock { state in
            state.consumerCancelled = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .success(nil))
    }
}
