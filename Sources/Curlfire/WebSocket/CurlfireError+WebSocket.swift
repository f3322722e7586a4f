extension CurlfireError {
    /// Why a WebSocket connection failed (``CurlfireError/webSocketFailed(reason:)``).
    public enum WebSocketFailureReason: Sendable, Equatable, CustomStringConvertible {
        /// The URL's scheme is not `ws`, `wss`, `http` or `https`.
        case unsupportedScheme(String)
        /// The server answered the upgrade request with this status instead of 101.
        case upgradeRejected(statusCode: Int)
        /// The upgrade response is not a valid WebSocket handshake (a missing or wrong
        /// `Sec-WebSocket-Accept`, `Upgrade`, `Connection`, an unoffered protocol or extension, …).
        case invalidHandshake(String)
        /// The server broke the framing protocol: we closed with 1002.
        case protocolViolation(String)
        /// A text message or close reason was not valid UTF-8: we closed with 1007.
        case invalidUTF8
        /// A message exceeded ``WebSocketConfiguration/maximumMessageSize``: we closed with 1009.
        case messageTooBig(limit: Int)
        /// A compressed message could not be inflated: we closed with 1007.
        case decompressionFailed(String)
        /// No pong arrived within ``WebSocketConfiguration/pongTimeout``.
        case pongTimeout
        /// The server did not complete the close handshake within ``WebSocketConfiguration/closeTimeout``.
        case closeTimeout
        /// The connection ended without a close frame (1006).
        case connectionClosedAbnormally
        /// The connection is closing or closed: nothing more can be sent.
        case notConnected
        /// The messages are already being consumed (``WebSocketRequest/messages()`` or
        /// ``WebSocketRequest/streamMessageEvents(queue:handler:)`` was called before).
        case alreadyConsumed
        /// The message is larger than ``WebSocketConfiguration/maximumMessageSize`` and was not sent.
        case outgoingMessageTooBig(limit: Int)

        /// The close code this failure sends to the peer, where it sends one.
        public var closeCode: WebSocketCloseCode? {
            switch self {
            case .protocolViolation, .invalidHandshake: return .protocolError
            case .invalidUTF8, .decompressionFailed: return .invalidFramePayloadData
            case .messageTooBig: return .messageTooBig
            default: return nil
            }
        }

        /// A sentence saying what went wrong.
        public var description: String {
            switch self {
            case let .unsupportedScheme(scheme): return "the scheme \(scheme.debugDescription) is not ws, wss, http or https"
            case let .upgradeRejected(status): return "the server answered the upgrade with status \(status), not 101"
            case let .invalidHandshake(detail): return "invalid upgrade response: \(detail)"
            case let .protocolViolation(detail): return "protocol error (1002): \(detail)"
            case .invalidUTF8: return "a text message or close reason is not valid UTF-8 (1007)"
            case let .messageTooBig(limit): return "a message is larger than \(limit) bytes (1009)"
            case let .decompressionFailed(detail): return "a compressed message could not be inflated: \(detail)"
            case .pongTimeout: return "no pong arrived within the pong timeout"
            case .closeTimeout: return "the server did not complete the close handshake within the close timeout"
            case .connectionClosedAbnormally: return "the connection ended without a close frame (1006)"
            case .notConnected: return "the connection is closing or closed"
            case .alreadyConsumed: return "the messages of this WebSocket are already being consumed"
            case let .outgoingMessageTooBig(limit): return "the message is larger than \(limit) bytes and was not sent"
            }
        }
    }
}

extension CurlfireError {
    /// The reason, for ``webSocketFailed(reason:)``.
    public var webSocketFailureReason: WebSocketFailureReason? {
        if case let .webSocketFailed(reason) = self { return reason } else { return nil }
    }
}
