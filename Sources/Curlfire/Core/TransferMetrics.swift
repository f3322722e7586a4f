import Foundation
import FoundationNetworking

/// What libcurl measured about one transfer — the `URLSessionTaskMetrics` of Linux.
///
/// Durations are seconds from the start of the transfer (libcurl's `CURLINFO_*_TIME_T`, which are
/// cumulative): `nameLookup ≤ connect ≤ tlsHandshake ≤ requestStart ≤ firstByte ≤ total`. On a
/// reused connection the first three are about zero and ``isReusedConnection`` is `true`.
public struct TransferMetrics: Sendable, Equatable, CustomStringConvertible {
    /// The URL the transfer ended on (after redirects).
    public var effectiveURL: URL?
    /// When the transfer started (seconds since the reference date).
    public var startDate: Date
    /// Seconds until the host name was resolved.
    public var nameLookupDuration: TimeInterval
    /// Seconds until the TCP connection was established.
    public var connectDuration: TimeInterval
    /// Seconds until the TLS handshake completed (0 for plain HTTP).
    public var tlsHandshakeDuration: TimeInterval
    /// Seconds until the request was about to be sent (`CURLINFO_PRETRANSFER_TIME_T`).
    public var requestStartDuration: TimeInterval
    /// Seconds until the first response byte (`CURLINFO_STARTTRANSFER_TIME_T`).
    public var firstByteDuration: TimeInterval
    /// Seconds for the whole transfer, redirects included.
    public var totalDuration: TimeInterval
    /// Number of redirects followed.
    public var redirectCount: Int
    /// Seconds spent on redirects before the final transfer.
    public var redirectDuration: TimeInterval
    /// Request bytes sent: headers (`CURLINFO_REQUEST_SIZE`) plus body (`CURLINFO_SIZE_UPLOAD_T`).
    public var bytesSent: Int64
    /// Response bytes received: headers (`CURLINFO_HEADER_SIZE`) plus body as received on the wire.
    public var bytesReceived: Int64
    /// The HTTP version used: `"HTTP/1.0"`, `"HTTP/1.1"`, `"HTTP/2"` or `"HTTP/3"`.
    public var httpVersion: String?
    /// The local IP address of the connection.
    public var localAddress: String?
    /// The local port of the connection.
    public var localPort: Int?
    /// The remote IP address of the connection.
    public var remoteAddress: String?
    /// The remote port of the connection.
    public var remotePort: Int?
    /// Whether the transfer reused an existing connection (no new connect).
    public var isReusedConnection: Bool
    /// The negotiated TLS version (for example `"TLSv1.3"`), `nil` for plain HTTP.
    public var tlsVersion: String?
    /// The negotiated TLS cipher suite, `nil` for plain HTTP.
    public var tlsCipher: String?

    /// Creates metrics; all values are usually filled by the engine.
    public init(
        effectiveURL: URL? = nil, startDate: Date = Date(), nameLookupDuration: TimeInterval = 0,
        connectDuration: TimeInterval = 0, tlsHandshakeDuration: TimeInterval = 0,
        requestStartDuration: TimeInterval = 0, firstByteDuration: TimeInterval = 0,
        totalDuration: TimeInterval = 0, redirectCount: Int = 0, redirectDuration: TimeInterval = 0,
        bytesSent: Int64 = 0, bytesReceived: Int64 = 0, httpVersion: String? = nil,
        localAddress: String? = nil, localPort: Int? = nil, remoteAddress: String? = nil,
        remotePort: Int? = nil, isReusedConnection: Bool = false, tlsVersion: String? = nil,
        tlsCipher: String? = nil
    ) {
        self.effectiveURL = effectiveURL
        self.startDate = startDate
        self.nameLookupDuration = nameLookupDuration
        self.connectDuration = connectDuration
        self.tlsHandshakeDuration = tlsHandshakeDuration
        self.requestStartDuration = requestStartDuration
        self.firstByteDuration = firstByteDuration
        self.totalDuration = totalDuration
        self.redirectCount = redirectCount
        self.redirectDuration = redirectDuration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.httpVersion = httpVersion
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.isReusedConnection = isReusedConnection
        self.tlsVersion = tlsVersion
        self.tlsCipher = tlsCipher
    }

    /// A one-line summary: version, addresses, reuse, TLS, and the phase times in milliseconds.
    public var description: String {
        func ms(_ t: TimeInterval) -> String { String(format: "%.2fms", t * 1000) }
        var parts = [httpVersion ?? "HTTP/?"]
        if let remoteAddress { parts.append("remote \(remoteAddress):\(remotePort ?? 0)") }
        if let localAddress { parts.append("local \(localAddress):\(localPort ?? 0)") }
        parts.append(isReusedConnection ? "reused connection" : "new connection")
        if let tlsVersion { parts.append("\(tlsVersion) \(tlsCipher ?? "")") }
        parts.append("dns \(ms(nameLookupDuration))")
        parts.append("connect \(ms(connectDuration))")
        parts.append("tls \(ms(tlsHandshakeDuration))")
        parts.append("first byte \(ms(firstByteDuration))")
        parts.append("total \(ms(totalDuration))")
        if redirectCount > 0 { parts.append("\(redirectCount) redirects in \(ms(redirectDuration))") }
        parts.append("sent \(bytesSent) B, received \(bytesReceived) B")
        return "Metrics: { " + parts.joined(separator: ", ") + " }"
    }
}
