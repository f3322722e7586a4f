/// The status code of a WebSocket close frame (RFC 6455 section 7.4). The registered codes are
/// static members; applications may use 3000–4999.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent on the wire.
    public let rawValue: UInt16

    /// Wraps a code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: an endpoint is going away (a server shutting down, a client leaving).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: a protocol error (a malformed frame, reserved bits, an unknown opcode, …).
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: no status code was present in the peer's close frame (never sent).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data was not consistent with its type (a text message that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client expected the server to negotiate an extension.
    public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    /// Whether the code may appear in a close frame on the wire (RFC 6455 section 7.4: 1000–1003,
    /// 1007–1011, and 3000–4999; 1004, 1005, 1006 and 1015 never).
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 1012...1014, 3000...4999: return true
        default: return false
        }
    }

    /// `1000` and the like.
    public var description: String { String(rawValue) }
}
