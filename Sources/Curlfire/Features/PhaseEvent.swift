import Foundation

/// One phase of a request's attempt, reported while it happens (``EventMonitor/request(_:didReachPhase:)``).
///
/// Sent only to monitors whose ``EventMonitor/receivesLiveEvents`` is `true`; a session without
/// such a monitor installs none of the libcurl callbacks that produce them. For one request the
/// events arrive in the order they happened, before ``EventMonitor/request(_:didGatherMetrics:)``
/// and ``EventMonitor/requestDidFinish(_:)`` of the same attempt.
public struct PhaseEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A name lookup started for `host` (not sent when the address came from libcurl's DNS cache
        /// or the connection was reused).
        case dnsStart(host: String)
        /// The name lookup ended: `addresses` are the ones the attempt connects to, in the order
        /// tried (reported when the first connection to one of them starts).
        case dnsEnd(host: String, addresses: [String])
        /// A TCP (or Unix-socket) connection to `address`:`port` is being opened.
        case connectStart(address: String, port: Int)
        /// The connection to `address`:`port` is established (stamped with libcurl's measured connect time).
        case connectEnd(address: String, port: Int)
        /// The TLS handshake started (stamped when the TCP connection was established).
        case tlsStart
        /// The TLS handshake finished: protocol version (`TLSv1.3`), cipher, and the server's
        /// certificate chain as DER, leaf first.
        case tlsEnd(version: String, cipher: String, peerCertificateChain: [Data])
        /// The attempt got its connection: a new one or one reused from the pool, with a
        /// session-unique `connectionID` and the peer's address.
        case connectionAcquired(connectionID: Int, isReused: Bool, address: String, port: Int)
        /// The attempt is over and handed its connection back (to the pool, or to be closed).
        case connectionReleased(connectionID: Int)
        /// The request line and header fields were written to the connection.
        case requestHeadersSent
        /// The response's status line and header fields arrived (before its body).
        case responseHeadersReceived(statusCode: Int)
        /// The first byte of the response body arrived.
        case firstBodyByte
        /// The session's ``ResponseCache`` was consulted before the first attempt (only with a cache).
        case cacheLookup(CacheLookup)
    }

    /// What the cache lookup found (``Kind/cacheLookup(_:)``).
    public enum CacheLookup: Sendable, Equatable {
        /// A fresh stored response is served: no attempt follows.
        case hit
        /// A stale stored response is served (the request's policy or a directive allowed it).
        case stale
        /// Nothing usable was stored: the request goes to the server (or fails, cache-only).
        case miss
        /// A stored response must be revalidated: a conditional request goes to the server, and a
        /// `304` serves the stored response (``CacheStatus/revalidated``).
        case revalidating
    }

    /// What happened.
    public let kind: Kind
    /// When it happened.
    public let date: Date

    /// An event of `kind` at `date` (now by default).
    public init(_ kind: Kind, at date: Date = Date()) {
        self.kind = kind
        self.date = date
    }
}
