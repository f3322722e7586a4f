import Foundation

/// A session's connections and requests at one moment (``SessionManager/connectionPoolStatistics``).
///
/// Tracked from libcurl's socket open and close callbacks and the engine's attempts, which a
/// session installs only when one of its monitors ``EventMonitor/receivesLiveEvents``.
public struct ConnectionPoolStatistics: Sendable, Equatable {
    /// One peer's connections.
    public struct Host: Sendable, Equatable {
        /// Connections open (connecting, idle or in use).
        public var open: Int
        /// Open connections no request is using.
        public var idle: Int { open - inUse }
        /// Connections carrying at least one request now.
        public var inUse: Int

        /// Counts of one host.
        public init(open: Int, inUse: Int) {
            self.open = open
            self.inUse = inUse
        }
    }

    /// Connections per peer, keyed `host:port` as the request's URL names them.
    public var hosts: [String: Host]
    /// Attempts handed to the engine that have no connection yet (waiting for a connection slot,
    /// resolving or connecting).
    public var waitingRequests: Int
    /// Attempts running in the engine (waiting or on a connection).
    public var activeRequests: Int

    /// Connections open across hosts.
    public var openConnections: Int { hosts.values.reduce(0) { $0 + $1.open } }
    /// Idle connections across hosts.
    public var idleConnections: Int { hosts.values.reduce(0) { $0 + $1.idle } }
    /// In-use connections across hosts.
    public var inUseConnections: Int { hosts.values.reduce(0) { $0 + $1.inUse } }

    /// Statistics made of their parts.
    public init(hosts: [String: Host], waitingRequests: Int, activeRequests: Int) {
        self.hosts = hosts
        self.waitingRequests = waitingRequests
        self.activeRequests = activeRequests
    }
}

/// A connection that closed (``EventMonitor/connectionDidClose(_:)``).
public struct ClosedConnection: Sendable, Equatable {
    /// The connection's session-unique id (as in ``PhaseEvent/Kind/connectionAcquired(connectionID:isReused:address:port:)``).
    public let connectionID: Int
    /// The host it was opened for, as the request's URL names it.
    public let host: String
    /// The port it was opened for.
    public let port: Int
    /// How long it was open, from the socket's creation to its close.
    public let duration: TimeInterval

    /// A closed connection's description.
    public init(connectionID: Int, host: String, port: Int, duration: TimeInterval) {
        self.connectionID = connectionID
        self.host = host
        self.port = port
        self.duration = duration
    }
}
