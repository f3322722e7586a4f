import Foundation

/// Installs trust evaluation on a new TLS connection's `SSL_CTX` (given as a raw pointer) from
/// libcurl's `CURLOPT_SSL_CTX_FUNCTION`, on the engine thread. One instance per (session, host),
/// kept alive by the engine for the life of the session.
protocol TLSContextConfiguring: AnyObject, Sendable {
    /// Installs the verify callback; `false` aborts the connection.
    func install(onSSLContext context: UnsafeMutableRawPointer) -> Bool
    /// Why the most recent handshake was rejected, if it was.
    var lastFailure: CurlfireError.ServerTrustFailureReason? { get }
    /// Whether libcurl must require and check a stapled OCSP response (`CURLOPT_SSL_VERIFYSTATUS`).
    var requiresStapledOCSP: Bool { get }
}

extension TLSTrustBridge: TLSContextConfiguring {}

/// The transport settings of one attempt, resolved from the session's configuration and the
/// request before the attempt reaches the engine.
struct TransferOptions: Sendable {
    /// Idle timeout: the transfer fails when nothing arrives for this long (and connecting may take this long).
    var requestTimeout: TimeInterval = 60
    /// Total time allowed for the transfer.
    var resourceTimeout: TimeInterval = 7 * 24 * 3600
    /// Whether to follow redirects.
    var followRedirects = true
    /// The most redirects followed before `tooManyRedirects`.
    var maximumRedirects = 16
    /// HTTP version preference.
    var httpVersion: SessionConfiguration.HTTPVersion = .automatic
    /// Value for `CURLOPT_ACCEPT_ENCODING` (libcurl sends it and decodes the body), or `nil`.
    var acceptEncoding: String?
    /// Whether the session's cookie engine is on.
    var cookiesEnabled = true
    /// The proxy setting.
    var proxy: SessionConfiguration.Proxy = .none
    /// User name and password for HTTP authentication (Basic, Digest, … as the server asks).
    var credential: (user: String, password: String)?
    /// Trust evaluation for HTTPS, or `nil` for libcurl's own verification against the system roots.
    var trust: (any TLSContextConfiguring)?
    /// Client certificate for mutual TLS.
    var clientCertificate: ClientCertificateFiles?
    /// `CURLOPT_CONNECT_TO` entries (`HOST::ADDRESS:`).
    var connectTo: [String] = []
    /// libcurl's receive buffer size in bytes.
    var receiveBufferSize = 0
    /// Whether progress callbacks are needed.
    var reportsProgress = false
}

/// Files and type for a client certificate, as libcurl takes them.
struct ClientCertificateFiles: Sendable {
    var certificatePath: String
    var keyPath: String?
    var password: String?
    var type: String // "PEM" or "P12"
}
