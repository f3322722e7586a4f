import Foundation
import FoundationNetworking

/// What libcurl measured about one transfer — the `URLSessionTaskMetrics` of Linux.
///
/// Durations are seconds from the start of the transfer (libcurl's `CURLINFO_*_TIME_T`, which are
/// cumulative): `nameLookup ≤ connect ≤ tlsHandshake ≤ requestStart ≤ firstByte ≤ total`. On a
/// reused connection the first three are about zero and ``isReusedConnection`` is `true`.
public struct TransferMetrics: Sendable, Equatable, CustomStringConvertible {
    /// The values, in a shared box copied on write: metrics travel inside every response and
    /// outcome, and a 216-byte struct with six references made each copy of those a large
    /// `memcpy` and six retains (docs/Performance.md). Internal for the engine, which sets them all
    /// at once (``setValues(_:)``).
    struct Values: Equatable {
        var effectiveURL: URL?
        var startDate: Date
        var nameLookupDuration: TimeInterval
        var connectDuration: TimeInterval
        var tlsHandshakeDuration: TimeInterval
        var requestStartDuration: TimeInterval
        var firstByteDuration: TimeInterval
        var totalDuration: TimeInterval
        var redirectCount: Int
        var redirectDuration: TimeInterval
        var bytesSent: Int64
        var bytesReceived: Int64
        var httpVersion: String?
        var localAddress: String?
        var localPort: Int?
        var remoteAddress: String?
        var remotePort: Int?
        var isReusedConnection: Bool
        var tlsVersion: String?
        var tlsCipher: String?
        var tlsGroup: String?
    }

    /// The box: written only while uniquely referenced (copy on write), so sharing it is safe.
    private final class Storage: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var storage: Storage

    /// Which box holds the values (for tests that a spare is filled in place, ResultSparesTests).
    var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

    private mutating func mutate(_ change: (inout Values) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.values) }
        change(&storage.values)
    }

    /// Replaces every value with one uniqueness check: in place when the box is held alone, as the
    /// engine's spare is (ResultSpares.swift).
    mutating func setValues(_ values: Values) {
        mutate { $0 = values }
    }

    /// Two metrics are equal when every value is.
    public static func == (lhs: TransferMetrics, rhs: TransferMetrics) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.values == rhs.storage.values
    }

    /// The URL the transfer ended on (after redirects).
    public var effectiveURL: URL? {
        get { storage.values.effectiveURL }
        set { mutate { $0.effectiveURL = newValue } }
    }
    /// When the transfer started (seconds since the reference date).
    public var startDate: Date {
        get { storage.values.startDate }
        set { mutate { $0.startDate = newValue } }
    }
    /// Seconds until the host name was resolved.
    public var nameLookupDuration: TimeInterval {
        get { storage.values.nameLookupDuration }
        set { mutate { $0.nameLookupDuration = newValue } }
    }
    /// Seconds until the TCP connection was established.
    public var connectDuration: TimeInterval {
        get { storage.values.connectDuration }
        set { mutate { $0.connectDuration = newValue } }
    }
    /// Seconds until the TLS handshake completed (0 for plain HTTP).
    public var tlsHandshakeDuration: TimeInterval {
        get { storage.values.tlsHandshakeDuration }
        set { mutate { $0.tlsHandshakeDuration = newValue } }
    }
    /// Seconds until the request was about to be sent (`CURLINFO_PRETRANSFER_TIME_T`).
    public var requestStartDuration: TimeInterval {
        get { storage.values.requestStartDuration }
        set { mutate { $0.requestStartDuration = newValue } }
    }
    /// Seconds until the first response byte (`CURLINFO_STARTTRANSFER_TIME_T`).
    public var firstByteDuration: TimeInterval {
        get { storage.values.firstByteDuration }
        set { mutate { $0.firstByteDuration = newValue } }
    }
    /// Seconds for the whole transfer, redirects included.
    public var totalDuration: TimeInterval {
        get { storage.values.totalDuration }
        set { mutate { $0.totalDuration = newValue } }
    }
    /// Number of redirects followed.
    public var redirectCount: Int {
        get { storage.values.redirectCount }
        set { mutate { $0.redirectCount = newValue } }
    }
    /// Seconds spent on redirects before the final transfer.
    public var redirectDuration: TimeInterval {
        get { storage.values.redirectDuration }
        set { mutate { $0.redirectDuration = newValue } }
    }
    /// Request bytes sent: headers (`CURLINFO_REQUEST_SIZE`) plus body (`CURLINFO_SIZE_UPLOAD_T`).
    public var bytesSent: Int64 {
        get { storage.values.bytesSent }
        set { mutate { $0.bytesSent = newValue } }
    }
    /// Response bytes received: headers (`CURLINFO_HEADER_SIZE`) plus body as received on the wire.
    public var bytesReceived: Int64 {
        get { storage.values.bytesReceived }
        set { mutate { $0.bytesReceived = newValue } }
    }
    /// The HTTP version used: `"HTTP/1.0"`, `"HTTP/1.1"`, `"HTTP/2"` or `"HTTP/3"`.
    public var httpVersion: String? {
        get { storage.values.httpVersion }
        set { mutate { $0.httpVersion = newValue } }
    }
    /// The local IP address of the connection.
    public var localAddress: String? {
        get { storage.values.localAddress }
        set { mutate { $0.localAddress = newValue } }
    }
    /// The local port of the connection.
    public var localPort: Int? {
        get { storage.values.localPort }
        set { mutate { $0.localPort = newValue } }
    }
    /// The remote IP address of the connection.
    public var remoteAddress: String? {
        get { storage.values.remoteAddress }
        set { mutate { $0.remoteAddress = newValue } }
    }
    /// The remote port of the connection.
    public var remotePort: Int? {
        get { storage.values.remotePort }
        set { mutate { $0.remotePort = newValue } }
    }
    /// Whether the transfer reused an existing connection (no new connect).
    public var isReusedConnection: Bool {
        get { storage.values.isReusedConnection }
        set { mutate { $0.isReusedConnection = newValue } }
    }
    /// The negotiated TLS version (for example `"TLSv1.3"`), `nil` for plain HTTP.
    public var tlsVersion: String? {
        get { storage.values.tlsVersion }
        set { mutate { $0.tlsVersion = newValue } }
    }
    /// The negotiated TLS cipher suite, `nil` for plain HTTP.
    public var tlsCipher: String? {
        get { storage.values.tlsCipher }
        set { mutate { $0.tlsCipher = newValue } }
    }
    /// The negotiated key-exchange group, as OpenSSL names it (`"x25519"`, `"secp256r1"`); `nil` for
    /// plain HTTP or a key exchange without a group.
    public var tlsGroup: String? {
        get { storage.values.tlsGroup }
        set { mutate { $0.tlsGroup = newValue } }
    }

    /// Creates metrics; all values are usually filled by the engine.
    public init(
        effectiveURL: URL? = nil, startDate: Date = Date(), nameLookupDuration: TimeInterval = 0,
        connectDuration: TimeInterval = 0, tlsHandshakeDuration: TimeInterval = 0,
        requestStartDuration: TimeInterval = 0, firstByteDuration: TimeInterval = 0,
        totalDuration: TimeInterval = 0, redirectCount: Int = 0, redirectDuration: TimeInterval = 0,
        bytesSent: Int64 = 0, bytesReceived: Int64 = 0, httpVersion: String? = nil,
        localAddress: String? = nil, localPort: Int? = nil, remoteAddress: String? = nil,
        remotePort: Int? = nil, isReusedConnection: Bool = false, tlsVersion: String? = nil,
        tlsCipher: String? = nil, tlsGroup: String? = nil
    ) {
        storage = Storage(Values(
            effectiveURL: effectiveURL, startDate: startDate, nameLookupDuration: nameLookupDuration,
            connectDuration: connectDuration, tlsHandshakeDuration: tlsHandshakeDuration,
            requestStartDuration: requestStartDuration, firstByteDuration: firstByteDuration,
            totalDuration: totalDuration, redirectCount: redirectCount, redirectDuration: redirectDuration,
            bytesSent: bytesSent, bytesReceived: bytesReceived, httpVersion: httpVersion,
            localAddress: localAddress, localPort: localPort, remoteAddress: remoteAddress,
            remotePort: remotePort, isReusedConnection: isReusedConnection, tlsVersion: tlsVersion,
            tlsCipher: tlsCipher, tlsGroup: tlsGroup))
    }

    /// A one-line summary: version, addresses, reuse, TLS, and the phase times in milliseconds.
    public var description: String {
        func ms(_ t: TimeInterval) -> String { String(format: "%.2fms", t * 1000) }
        var parts = [httpVersion ?? "HTTP/?"]
        if let remoteAddress { parts.append("remote \(remoteAddress):\(remotePort ?? 0)") }
        if let localAddress { parts.append("local \(localAddress):\(localPort ?? 0)") }
        parts.append(isReusedConnection ? "reused connection" : "new connection")
        if let tlsVersion { parts.append("\(tlsVersion) \(tlsCipher ?? "")" + (tlsGroup.map { " \($0)" } ?? "")) }
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
