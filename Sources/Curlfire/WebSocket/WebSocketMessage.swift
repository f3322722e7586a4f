import Foundation

/// One WebSocket message (RFC 6455): the payload of a data frame, or of the frames of a fragmented
/// message put together.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (opcode 1): valid UTF-8, checked on receipt.
    case text(String)
    /// A binary message (opcode 2).
    case binary(Data)

    /// The payload's length in bytes (UTF-8 bytes for text).
    public var byteCount: Int {
        switch self {
        case let .text(string): return string.utf8.count
        case let .binary(data): return data.count
        }
    }
}
