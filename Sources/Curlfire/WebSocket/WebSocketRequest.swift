import Foundation
import FoundationNetworking

/// A WebSocket connection (RFC 6455) made by ``SessionManager/webSocketRequest(_:protocols:headers:configuration:)``:
/// the same trust policies, client identity, proxy and timeouts as the session's HTTPS requests,
/// an `AsyncSequence` of messages, and Alamofire-style events.
///
/// The connection opens when the first of ``messages()``, ``streamMessageEvents(queue:handler:)``,
/// ``send(_:)``, ``ping()`` or ``resume()`` is called. Messages that arrive before a consumer is
/// attached are kept, and reading pauses while the consumer is behind (back-pressure). Copies of
/// the value share the connection; when the last copy (and the last iterator) is released, an
/// open connection is cancelled.
public struct WebSocketRequest: Sendable {
    /// Closes the connection when the last copy is gone.
    final class Lifetime: Sendable {
        let connection: WebSocketConnection
        init(_ connection: WebSocketConnection) { self.connection = connection }
        deinit { connection.cancel() }
    }

    let lifetime: Lifetime
    var connection: WebSocketConnection { lifetime.connection }
    /// The session's callback queue, for events without a `queue:`.
    let callbackQueue: DispatchQueue

    init(connection: WebSocketConnection, callbackQueue: DispatchQueue) {
        lifetime = Lifetime(connection)
        self.callbackQueue = callbackQueue
    }

    // MARK: - Handshake results

    /// The upgrade response (status 101), once the handshake succeeded; `nil` before and when it failed.
    public var response: HTTPURLResponse? { connection.shared.withLock { $0.response } }
    /// The opening handshake's timeline: connect, upgrade request, 101 response.
    public var timeline: Timeline { connection.shared.withLock { $0.timeline } }
    /// The opening handshake's metrics (name lookup, connect, TLS, the upgrade's bytes).
    public var metrics: TransferMetrics? { connection.shared.withLock { $0.metrics } }
    /// The subprotocol the server chose, if any.
    public var negotiatedProtocol: String? { connection.shared.withLock { $0.subprotocol } }
    /// The close code of a finished close handshake (1005 when the server's close frame had none).
    public var closeCode: WebSocketCloseCode? {
        connection.shared.withLock { state in
            if case let .closed(code, _) = state.ending { return code } else { return nil }
        }
    }
    /// The reason of a finished close handshake.
    public var closeReason: String? {
        connection.shared.withLock { state in
            if case let .closed(_, reason) = state.ending { return reason } else { return nil }
        }
    }
    /// Why the connection failed, if it did.
    public var error: CurlfireError? {
        connection.shared.withLock { state in
            if case let .failed(error) = state.ending { return error } else { return nil }
        }
    }

    // MARK: - Control

    /// Opens the connection if it is not open yet. Returns the request.
    @discardableResult
    public func resume() -> WebSocketRequest {
        connection.start()
        return self
    }

    /// Sends a message (fragmented at ``WebSocketConfiguration/maximumFrameSize``); returns when
    /// its last byte was handed to the socket.
    ///
    /// - Throws: ``CurlfireError/webSocketFailed(reason:)`` (`notConnected`, `outgoingMessageTooBig`),
    ///   or the connection's failure.
    public func send(_ message: WebSocketMessage) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            connection.enqueue(.send(message, continuation))
        }
    }

    /// Sends a ping and returns the round-trip time in seconds once its pong arrives. No pong within
    /// ``WebSocketConfiguration/pongTimeout`` fails the connection (and this call) with `pongTimeout`.
    public func ping() async throws -> TimeInterval {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TimeInterval, Error>) in
            connection.enqueue(.ping(continuation))
        }
    }

    /// Starts the close handshake: a close frame with `code` and `reason` (cut to fit 123 bytes),
    /// then the messages end once the server answers, or fail with `closeTimeout` after
    /// ``WebSocketConfiguration/closeTimeout``. A code that may not be sent (1005, 1006, 1015) is
    /// sent as 1000. Calling it again does nothing.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        connection.enqueue(.close(code, reason))
    }

    /// Ends the connection at once, without a close handshake: the messages and events fail with
    /// ``CurlfireError/explicitlyCancelled``.
    public func cancel() {
        connection.cancel()
    }

    // MARK: - Consuming

    /// The received messages, in order: ends after a close handshake, throws
    /// ``CurlfireError`` when the connection fails. One consumer per connection: a second sequence
    /// (or one after ``streamMessageEvents(queue:handler:)``) throws `alreadyConsumed`. Cancelling the
    /// task that iterates closes the connection with 1001 (going away) and ends the sequence.
    public func messages() -> WebSocketMessages {
        let claimed = connection.inbox.claimSequence()
        connection.start()
        return WebSocketMessages(lifetime: lifetime, claimed: claimed)
    }

    /// Reports the connection's events on `queue` (the session's `callbackQueue` by default):
    /// ``WebSocketEvent/connected(protocol:)`` once, ``WebSocketEvent/receivedMessage(_:)`` per
    /// message, ``WebSocketEvent/disconnected(closeCode:reason:)`` after a close handshake, and
    /// ``WebSocketEvent/completed(_:)`` exactly once, last. The connection stays open until then even
    /// if no copy of the request is kept. One consumer per connection: if ``messages()`` came first,
    /// the handler gets only `completed` with `alreadyConsumed`.
    @discardableResult
    public func streamMessageEvents(queue: DispatchQueue? = nil,
                                    handler: @escaping @Sendable (WebSocketEvent) -> Void) -> WebSocketRequest {
        let queue = queue ?? callbackQueue
        // The handler keeps the connection alive until `completed`, as a running Alamofire request
        // is kept: `session.webSocketRequest(url).streamMessageEvents { … }` needs no stored value.
        let keeper = LockedValue<Lifetime?>(lifetime)
        let retaining: @Sendable (WebSocketEvent) -> Void = { event in
            handler(event)
            if case .completed = event { keeper.withLock { $0 = nil } }
        }
        if connection.inbox.claimEvents(queue: queue, handler: retaining) {
            connection.start()
        } else {
            queue.async { handler(.completed(.failure(.webSocketFailed(reason: .alreadyConsumed)))) }
        }
        return self
    }
}

/// The messages of a ``WebSocketRequest``, an `AsyncSequence` that ends after the close handshake
/// and throws ``CurlfireError`` when the connection fails.
public struct WebSocketMessages: AsyncSequence, Sendable {
    /// A message.
    public typealias Element = WebSocketMessage
    /// The connection's failure.
    public typealias Failure = CurlfireError

    let lifetime: WebSocketRequest.Lifetime
    let claimed: Bool

    /// An iterator: one per sequence is meant to be used, from one task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let lifetime: WebSocketRequest.Lifetime
        var failure: CurlfireError?
        var finished = false

        /// The next message; `nil` after the close handshake or when the task was cancelled.
        public mutating func next() async throws(CurlfireError) -> WebSocketMessage? {
            try await next(isolation: nil)
        }

        /// The next message; `nil` after the close handshake or when the task was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CurlfireError) -> WebSocketMessage? {
            if let failure {
                self.failure = nil
                finished = true
                throw failure
            }
            if finished { return nil }
            let connection = lifetime.connection
            let result = await withTaskCancellationHandler {
                await connection.inbox.next()
            } onCancel: {
                connection.inbox.cancelConsumer()
                connection.enqueue(.close(.goingAway, ""))
            }
            switch result {
            case let .success(message?): return message
            case .success(nil):
                finished = true
                return nil
            case let .failure(error):
                finished = true
                throw error
            }
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lifetime: lifetime, failure: claimed ? nil : .webSocketFailed(reason: .alreadyConsumed))
    }
}
