/// What ``WebSocketRequest/streamMessageEvents(queue:handler:)`` reports, in this order:
/// `connected` once, `receivedMessage` for each message, `disconnected` when a close handshake
/// ended the connection, and `completed` exactly once, last.
public enum WebSocketEvent: Sendable {
    /// The upgrade succeeded; the subprotocol the server chose, if any.
    case connected(protocol: String?)
    /// A message arrived.
    case receivedMessage(WebSocketMessage)
    /// The connection was closed with a close handshake: the peer's code and reason.
    case disconnected(closeCode: WebSocketCloseCode, reason: String)
    /// The connection ended: `.success` after a close handshake, `.failure` with the reason otherwise.
    case completed(Result<Void, CurlfireError>)
}
