import Foundation

extension SessionConfiguration {
    /// TCP keep-alive probes on idle connections (`SO_KEEPALIVE`): they keep NAT and load-balancer
    /// entries alive and find a dead peer.
    public struct TCPKeepAlive: Sendable, Hashable {
        /// How long a connection is idle before the first probe, in seconds (whole, at least 1).
        public var idle: TimeInterval
        /// The time between probes, in seconds (whole, at least 1).
        public var interval: TimeInterval

        /// Probes after `idle` seconds of silence, then every `interval` seconds. 60 and 60 by default.
        public init(idle: TimeInterval = 60, interval: TimeInterval = 60) {
            self.idle = idle
            self.interval = interval
        }
    }
}

/// The libcurl settings of a session's connection pool, from its configuration: per connection
/// (written by each ``AttemptPlan``) and for the whole multi handle (set once by the engine).
struct ConnectionPoolSettings: Sendable, Equatable {
    /// `CURLOPT_MAXLIFETIME_CONN`, whole seconds.
    var lifetimeSeconds: Int?
    /// `CURLOPT_MAXAGE_CONN`, whole seconds.
    var idleSeconds: Int?
    /// `CURLOPT_TCP_KEEPIDLE` and `CURLOPT_TCP_KEEPINTVL`, whole seconds (with `CURLOPT_TCP_KEEPALIVE`).
    var keepAlive: (idle: Int, interval: Int)?
    /// `CURLMOPT_MAX_TOTAL_CONNECTIONS` (0: no limit).
    var maximumConnections: Int?
    /// `CURLMOPT_MAX_CONCURRENT_STREAMS`.
    var maximumConcurrentStreams: Int?

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.lifetimeSeconds == rhs.lifetimeSeconds && lhs.idleSeconds == rhs.idleSeconds
            && lhs.keepAlive?.idle == rhs.keepAlive?.idle && lhs.keepAlive?.interval == rhs.keepAlive?.interval
            && lhs.maximumConnections == rhs.maximumConnections && lhs.maximumConcurrentStreams == rhs.maximumConcurrentStreams
    }

    init(_ configuration: SessionConfiguration) {
        lifetimeSeconds = configuration.maximumConnectionLifetime.map(Self.wholeSeconds)
        idleSeconds = configuration.maximumConnectionIdleTime.map(Self.wholeSeconds)
        keepAlive = configuration.tcpKeepAlive.map { (Self.wholeSeconds($0.idle), Self.wholeSeconds($0.interval)) }
        maximumConnections = configuration.maximumConnections.map { max(0, $0) }
        maximumConcurrentStreams = configuration.http2MaximumConcurrentStreams.map { min(max(1, $0), 2_147_483_647) }
    }

    /// Whether any per-connection option is set (the plan then writes them).
    var hasConnectionOptions: Bool { lifetimeSeconds != nil || idleSeconds != nil || keepAlive != nil }

    /// Seconds as libcurl's whole seconds: rounded up, at least 1, at most about 68 years.
    static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return seconds.isNaN ? 1 : Int(Int32.max) }
        return Int(min(max(seconds.rounded(.up), 1), Double(Int32.max)))
    }

    /// The multi-handle options: (option, value) pairs for the engine.
    var multiOptions: [(CURLMoptionValue, Int)] {
        var options: [(CURLMoptionValue, Int)] = []
        if let maximumConnections { options.append((.maximumTotalConnections, maximumConnections)) }
        if let maximumConcurrentStreams { options.append((.maximumConcurrentStreams, maximumConcurrentStreams)) }
        return options
    }

    /// The multi-handle options this type sets (named, so the engine maps them to libcurl's).
    enum CURLMoptionValue: Equatable { case maximumTotalConnections, maximumConcurrentStreams }
}
