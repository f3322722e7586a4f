import Foundation

/// The settings of one WebSocket connection.
public struct WebSocketConfiguration: Sendable, Equatable {
    /// The largest message accepted, in bytes (after decompression); a bigger one fails the
    /// connection with close code 1009. 16 MiB by default.
    public var maximumMessageSize: Int
    /// The largest frame payload sent, in bytes: longer messages are sent as fragments. 1 MiB by default.
    public var maximumFrameSize: Int
    /// Whether a ping is answered with a pong automatically. `true` by default.
    public var automaticallyRespondsToPings: Bool
    /// How often a ping is sent while the connection is open, `nil` for never. `nil` by default.
    public var pingInterval: TimeInterval?
    /// How long to wait for the pong of a ping before failing the connection. 10 seconds by default.
    public var pongTimeout: TimeInterval
    /// How long to wait for the server's close frame (and then its closing of the TCP connection)
    /// after sending one. 5 seconds by default.
    public var closeTimeout: TimeInterval
    /// Whether permessage-deflate (RFC 7692) is offered to the server. `false` by default.
    public var permessageDeflate: Bool

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(maximumMessageSize: Int = 16 << 20, maximumFrameSize: Int = 1 << 20,
                automaticallyRespondsToPings: Bool = true, pingInterval: TimeInterval? = nil,
                pongTimeout: TimeInterval = 10, closeTimeout: TimeInterval = 5, permessageDeflate: Bool = false) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumFrameSize = maximumFrameSize
        self.automaticallyRespondsToPings = automaticallyRespondsToPings
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
        self.permessageDeflate = permessageDeflate
    }

    /// The defaults.
    public static let `default` = WebSocketConfiguration()
}
