import Foundation

/// Installs trust evaluation on a new TLS connection's `SSL_CTX` (given as a raw pointer) from
/// libcurl's `CURLOPT_SSL_CTX_FUNCTION`, on the engine thread. One instance per (session, host),
/// kept alive by the engine for the life of the session.
protocol TLSContextConfiguring: AnyObject, Sendable {
    /// Installs trust evaluation on a new connection's SSL_CTX. `handshake` identifies the easy handle
    /// making the connection (its pointer bits), so the verdict is kept per handshake.
    func install(onSSLContext context: UnsafeMutableRawPointer, handshake: UInt) -> Bool
    /// Why the most recent handshake made by `handshake` was rejected, removing the record; nil if none.
    func takeFailure(forHandshake handshake: UInt) -> CurlfireError.ServerTrustFailureReason?
}

extension TLSTrustBridge: TLSContextConfiguring {}

/// The transport settings of one attempt, resolved from the session's configuration and the
/// request before the attempt reaches the engine.
struct AttemptOptions: Sendable {
    /// Idle timeout: the transfer fails when nothing arrives for this long (and connecting may take this long).
    var requestTimeout: TimeInterval = 60
    /// Total time allowed for the transfer: the earlier of the session's resource timeout and the
    /// request's own deadline.
    var resourceTimeout: TimeInterval = 7 * 24 * 3600
    /// The request's own connect timeout (TCP and TLS handshake); `nil`: connecting may take
    /// ``requestTimeout``.
    var connectTimeout: TimeInterval?
    /// Whether a 3xx with a `Location` is followed without asking a handler (its body is then
    /// discarded, as libcurl does). Curlfire follows every hop itself: libcurl never does.
    var followRedirects = true
    /// The most redirects followed before `tooManyRedirects`.
    var maximumRedirects = 16
    /// HTTP version preference.
    var httpVersion: SessionConfiguration.HTTPVersion = .automatic
    /// The session's default headers, sent where the request does not set them (`Accept-Encoding`
    /// goes to `CURLOPT_ACCEPT_ENCODING`, so libcurl both advertises and decodes it).
    var defaultHeaders = HTTPHeaders()
    /// The same defaults made into header lines once per session (the plain request's list).
    var sessionHeaderLines: SessionHeaderLines?
    /// Whether the session's cookie engine is on.
    var cookiesEnabled = true
    /// The proxy setting.
    var proxy: SessionConfiguration.Proxy = .none
    /// The proxy's libcurl settings (address, credentials, `noProxy`, proxy-only headers), made once
    /// per session; `nil` when there are none.
    var proxyRoute: ProxyRoute?
    /// User name and password for HTTP authentication (Basic, Digest, … as the server asks).
    var credential: (user: String, password: String)?
    /// Trust evaluation for HTTPS, or `nil` for libcurl's own verification against the system roots.
    var trust: (any TLSContextConfiguring)?
    /// Client certificate for mutual TLS.
    var clientCertificate: ClientCertificateFiles?
    /// The most bytes per second received, if limited (the engine paces it: RatePacer).
    var maximumDownloadBytesPerSecond: Int?
    /// The most bytes per second sent, if limited.
    var maximumUploadBytesPerSecond: Int?
    /// DNS: `CURLOPT_IPRESOLVE` (`nil`: whatever), `CURLOPT_DNS_CACHE_TIMEOUT` seconds,
    /// `CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS` (each `nil`: libcurl's default), and the
    /// `CURLOPT_RESOLVE` entries, made once per session.
    var ipVersion: SessionConfiguration.IPVersion = .any
    var dnsCacheSeconds: Int?
    var happyEyeballsMilliseconds: Int?
    var resolveEntries: [String] = []
    /// The connection pool's per-connection settings, `nil` when the session sets none.
    var connectionPool: ConnectionPoolSettings?
    /// DNS over HTTPS: the endpoint, and the session's private roots as PEM for its certificate.
    var dnsOverHTTPS: DNSOverHTTPS?
    /// The Unix socket the hop connects through instead of TCP, if any.
    var unixSocket: UnixSocketRoute?
    /// `CURLOPT_CONNECT_TO` entries (`HOST::ADDRESS:`).
    var connectTo: [String] = []
    /// libcurl's receive buffer size in bytes.
    var receiveBufferSize = 0
    /// Whether progress callbacks are needed.
    var reportsProgress = false
    /// The TLS versions, suites and groups of an HTTPS hop's handshake (its host's policy).
    var tlsProtocolPolicy = TLSProtocolPolicy.default
    /// The session's key log and the host's trust, installed together on the connection's SSL_CTX
    /// when ``SessionConfiguration/tlsKeyLogFile`` is set; `nil` otherwise.
    var keyLogging: KeyLoggingTLSContext?
}

/// A session's DNS-over-HTTPS endpoint as libcurl takes it, made once per session.
final class DNSOverHTTPS: Sendable {
    /// `CURLOPT_DOH_URL`.
    let url: String
    /// The session's ``SessionConfiguration/trustedRootCertificates`` as PEM, or `nil` for the system roots.
    let trustedRootsPEM: [UInt8]?
    /// How the resolver's own handshake is judged when the origin has a trust evaluation
    /// (``DoHProbeTrust``): the default evaluation for the resolver's host, against the session's roots.
    let resolverTrust: TLSTrustBridge

    init(url: String, host: String, trustedRoots: [Certificate]) {
        self.url = url
        trustedRootsPEM = trustedRoots.isEmpty ? nil : Self.pem(trustedRoots)
        resolverTrust = TLSTrustBridge(host: host.lowercased(), policy: .performDefaultEvaluation(validateHost: true),
                                       trustedRoots: trustedRoots)
    }

    /// Certificates as one PEM bundle, the form of libcurl's `*_CAINFO_BLOB` options.
    static func pem(_ certificates: [Certificate]) -> [UInt8] {
        Array(certificates.map { certificate in
            let base64 = certificate.derData.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }.joined().utf8)
    }
}

/// Files and type for a client certificate, as libcurl takes them.
struct ClientCertificateFiles: Sendable {
    var certificatePath: String
    var keyPath: String?
    var password: String?
    var type: String // "PEM" or "P12"
}

/// ASCII case-insensitive header-name comparison without allocating (no `lowercased()`).
enum HeaderName {
    /// Whether `name` equals `lowercase` (which must be lowercase ASCII), ignoring ASCII case.
    static func equals(_ name: String, _ lowercase: StaticString) -> Bool {
        var utf8 = name.utf8.makeIterator()
        let matched = lowercase.withUTF8Buffer { expected -> Bool in
            for byte in expected {
                guard let actual = utf8.next() else { return false }
                let folded = actual >= 65 && actual <= 90 ? actual + 32 : actual
                if folded != byte { return false }
            }
            return true
        }
        return matched && utf8.next() == nil
    }

    /// Whether two header names are equal, ignoring ASCII case.
    static func equals(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        for (a, b) in zip(lhs.utf8, rhs.utf8) where a != b {
            let fa = a >= 65 && a <= 90 ? a + 32 : a
            let fb = b >= 65 && b <= 90 ? b + 32 : b
            if fa != fb { return false }
        }
        return true
    }
}
