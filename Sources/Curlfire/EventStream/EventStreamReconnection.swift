import Foundation

/// When an event stream reconnects: a small state value that takes what happened to a connection
/// and returns what to do next (ARCHITECTURE rule 16; tested as a table, no network, no clock).
///
/// A connection that delivered an event is followed by a reconnection after the reconnection time
/// (the server's `retry:`, else the configuration's). Connections in a row that deliver none back
/// off: the wait is `reconnectionTime × backoffMultiplier^failures`, capped, within ± `jitter`.
struct EventStreamReconnection: Sendable, Equatable {
    /// How a connection ended.
    enum End: Equatable, Sendable {
        /// The body ended without an error: the server closed the stream.
        case closed
        /// A transport failure worth another connection (reset, idle timeout, refused, DNS).
        case transientFailure
        /// HTTP 204: the server asks the client to stop.
        case noContent
        /// A failure another connection would repeat: a status or content type that is not a
        /// stream, trust, an adapter, a validator, an oversized event.
        case fatalFailure
        /// `cancel()` or task cancellation.
        case cancelled
    }

    /// What to do after a connection ended.
    enum Decision: Equatable, Sendable {
        /// Open a new connection after this many seconds.
        case reconnect(after: TimeInterval)
        /// End the stream without an error.
        case finish
        /// End the stream with the error the connection ended with.
        case fail
        /// End the stream: ``EventStreamConfiguration/maximumReconnectionAttempts`` were used up.
        case giveUp(attempts: Int)
    }

    let configuration: EventStreamConfiguration
    /// The wait before a reconnection, in seconds (the server's `retry:` once it sent one).
    private(set) var reconnectionTime: TimeInterval
    /// Connections in a row that ended without delivering an event.
    private(set) var failures = 0
    /// Reconnections since an event last arrived.
    private(set) var attempts = 0
    /// Whether the current connection delivered an event.
    private(set) var deliveredEvent = false

    init(configuration: EventStreamConfiguration) {
        self.configuration = configuration
        reconnectionTime = max(0, configuration.reconnectionTime)
    }

    /// The server set the reconnection time (`retry:`, in milliseconds).
    mutating func retryReceived(milliseconds: Int) {
        reconnectionTime = Double(milliseconds) / 1000
    }

    /// The current connection delivered an event: the counts of failures and attempts start again.
    mutating func eventDelivered() {
        deliveredEvent = true
        failures = 0
        attempts = 0
    }

    /// The current connection ended; `jitter` is a random draw in 0...1 (0.5 means none).
    mutating func connectionEnded(_ end: End, jitter draw: Double) -> Decision {
        let delivered = deliveredEvent
        deliveredEvent = false
        switch end {
        case .cancelled, .fatalFailure: return .fail
        case .noContent: return .finish
        case .closed where !configuration.reconnects: return .finish
        case .transientFailure where !configuration.reconnects: return .fail
        case .closed, .transientFailure: break
        }
        if !delivered { failures += 1 }
        guard attempts < configuration.maximumReconnectionAttempts else { return .giveUp(attempts: attempts) }
        attempts += 1
        guard failures > 0 else { return .reconnect(after: reconnectionTime) }
        let backedOff = min(reconnectionTime * pow(max(1, configuration.backoffMultiplier), Double(failures)),
                            max(reconnectionTime, configuration.maximumReconnectionDelay))
        let spread = min(max(configuration.jitter, 0), 1)
        let factor = 1 + spread * (2 * min(max(draw, 0), 1) - 1)
        return .reconnect(after: max(0, backedOff * factor))
    }
}
