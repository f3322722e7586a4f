import Foundation

/// How an ``EventStreamRequest`` reconnects, how large an event may be and how long the stream may
/// stay silent.
public struct EventStreamConfiguration: Sendable, Hashable {
    /// Whether the stream reconnects when a connection ends (cleanly, or with a transport error
    /// such as a reset or the idle timeout), sending `Last-Event-ID`. `true` by default; set it to
    /// `false` for a response that must not be replayed, such as an LLM completion.
    public var reconnects: Bool
    /// Seconds to wait before reconnecting until the server sends `retry:`. 3 by default.
    public var reconnectionTime: TimeInterval
    /// Each connection in a row that delivers no event multiplies the wait by this. 2 by default.
    public var backoffMultiplier: Double
    /// The longest wait between reconnections, before jitter. 60 seconds by default.
    public var maximumReconnectionDelay: TimeInterval
    /// A backed-off wait is drawn at random within ± this fraction of itself, so clients that
    /// lost the same server do not all come back at once. 0.2 by default (clamped to 0...1).
    public var jitter: Double
    /// How many reconnections in a row may deliver no event before the stream fails with
    /// ``CurlfireError/EventStreamFailureReason/reconnectionLimitReached(attempts:lastError:)``.
    /// A connection that delivers an event starts the count again. 10 by default.
    public var maximumReconnectionAttempts: Int
    /// The most bytes one event may hold (its data plus the line being read); past it the
    /// connection is closed and the stream fails with
    /// ``CurlfireError/EventStreamFailureReason/eventTooLarge(limit:)``. 4 MiB by default.
    public var maximumEventSize: Int
    /// How long a connection may receive nothing (not even a comment) before it counts as stalled
    /// and ends with ``TransportErrorCode/timedOut`` (then reconnects, when ``reconnects``).
    /// `nil` by default: the session's `timeoutIntervalForRequest`.
    public var idleTimeout: TimeInterval?
    /// How many received bytes may wait for the consumer before the connection pauses (libcurl stops
    /// reading the socket). 1 MiB by default.
    public var maximumBufferedBytes: Int

    /// A configuration; every parameter has the default described on its property.
    public init(reconnects: Bool = true, reconnectionTime: TimeInterval = 3, backoffMultiplier: Double = 2,
                maximumReconnectionDelay: TimeInterval = 60, jitter: Double = 0.2,
                maximumReconnectionAttempts: Int = 10, maximumEventSize: Int = 4 << 20,
                idleTimeout: TimeInterval? = nil, maximumBufferedBytes: Int = 1 << 20) {
        self.reconnects = reconnects
        self.reconnectionTime = reconnectionTime
        self.backoffMultiplier = backoffMultiplier
        self.maximumReconnectionDelay = maximumReconnectionDelay
        self.jitter = jitter
        self.maximumReconnectionAttempts = maximumReconnectionAttempts
        self.maximumEventSize = maximumEventSize
        self.idleTimeout = idleTimeout
        self.maximumBufferedBytes = maximumBufferedBytes
    }
}
