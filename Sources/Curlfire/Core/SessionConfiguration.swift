import Foundation

/// How a ``SessionManager`` sends requests: the Linux counterpart of `URLSessionConfiguration`,
/// with its names where it has one.
public struct SessionConfiguration: Sendable {
    /// Which HTTP version to ask for.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise. The default.
        case automatic
        /// HTTP/1.1 only.
        case http1_1
        /// HTTP/2 wherever the server agrees: over TLS through ALPN, and over plain HTTP by offering
        /// `Upgrade: h2c` on the first request (a server that ignores it answers in HTTP/1.1).
        /// Differs from ``automatic`` only for plain HTTP, where ``automatic`` never offers HTTP/2.
        case http2
        /// HTTP/2 without negotiation, also over plain HTTP (h2c prior knowledge).
        case http2PriorKnowledge
    }

    /// The default configuration.
    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// Headers added to every request unless the request sets them.
    /// ``SessionManager/defaultHTTPHeaders`` by default.
    public var httpAdditionalHeaders: HTTPHeaders = SessionManager.defaultHTTPHeaders
    /// Idle timeout in seconds: a request fails with ``TransportErrorCode/timedOut`` when nothing
    /// arrives for this long, connecting included. 60 by default. A request made from a URL
    /// (`request("https://…")`) starts with this value as its `timeoutInterval`, which its
    /// `requestModifier` may change; a `URLRequest` you build yourself is sent with its own
    /// `timeoutInterval` — any value, 60 included (Foundation's default for a new `URLRequest`). Connecting is timed to the
    /// millisecond; before the first response byte libcurl counts idleness in whole seconds
    /// (rounded up); once bytes move the engine times it itself, to within about 100 ms. A
    /// suspended or back-pressured transfer is not idle.
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// The most a whole request may take, in seconds — attempts, retry delays and redirects included.
    /// 7 days by default. A request's own ``DataTransferRequest/deadline(_:)`` shortens it for that
    /// request: the earlier of the two wins.
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// The most simultaneous connections to one host. 6 by default, as on Apple platforms.
    public var httpMaximumConnectionsPerHost: Int = 6
    /// HTTP version preference. ``HTTPVersion/automatic`` by default.
    public var httpVersion: HTTPVersion = .automatic
    /// Whether cookies set by responses are stored and sent on later requests of the session. `true` by default.
    public var httpShouldSetCookies: Bool = true
    /// The proxy. ``Proxy/none`` by default (environment variables are ignored unless asked for).
    public var proxy: Proxy = .none
    /// Hosts reached without the ``proxy``, as curl's `--noproxy`: a host name (`example.com` also
    /// covers its subdomains, `.example.com` only them), an IP address, a CIDR range
    /// (`10.0.0.0/8`, `fd00::/8`), or `*` for every host. Empty by default. With
    /// ``Proxy/environment`` a non-empty list replaces `no_proxy`.
    public var noProxy: [String] = []
    /// Headers sent only to the proxy — on a `CONNECT` for HTTPS, and on requests to a plain-HTTP
    /// origin through an HTTP proxy — never to the origin through a tunnel. Empty by default.
    public var proxyHeaders: HTTPHeaders = [:]
    /// How an ``Proxy/https(host:port:credentials:)`` proxy's certificate is checked: its own roots
    /// and pins, kept apart from the origins' trust. `nil` by default: the system roots, host name checked.
    public var proxyTrust: ProxyTrust?
    /// Whether redirects are followed. `true` by default.
    public var followsRedirects: Bool = true
    /// The most redirects followed before failing with ``TransportErrorCode/tooManyRedirects``. 16 by default.
    public var maximumRedirects: Int = 16
    /// libcurl's receive buffer in bytes for downloads to a file (``DownloadRequest``); larger buffers
    /// make large downloads faster. 512 KiB by default. Every other response (in memory, streamed)
    /// reads through libcurl's 16 KiB buffer, or through this size when it is smaller: libcurl
    /// allocates the buffer for each request, and a large one made small requests slower.
    public var receiveBufferSize: Int = 512 * 1024
    /// Connects to another address for a host name, as curl's `--connect-to`: `["api.example.com":
    /// "127.0.0.1"]` sends requests for `api.example.com` (any port) to 127.0.0.1 while TLS (SNI,
    /// certificate checks, trust policies) and the `Host` header still use `api.example.com`.
    /// A key `"host:port"` redirects only that port, and a value `"address:port"` (`"[::1]:8443"`)
    /// connects to another port: `["api.example.com:443": "127.0.0.1:8443"]`. Empty by default.
    public var connectTo: [String: String] = [:]
    /// The most bytes per second each request of the session receives (its response body), paced by
    /// the engine from the first byte: a 10 MB download at 2 MB/s takes about 5 s, a short one too
    /// (libcurl's own limiter lets short transfers through far too fast). A request's
    /// `maximumDownloadBytesPerSecond(_:)` replaces it. Must be positive. `nil` by default: no limit.
    public var maximumDownloadBytesPerSecond: Int?
    /// The most bytes per second each request of the session sends (its body), paced the same way.
    /// A request's `maximumUploadBytesPerSecond(_:)` replaces it. Must be positive. `nil` by default.
    public var maximumUploadBytesPerSecond: Int?
    /// The most a connection is used for, from when it was made, in seconds (whole, at least 1):
    /// an older one is not given new requests but closed, so traffic moves to new servers after a
    /// rollout. libcurl counts whole seconds: a connection goes once its age in whole seconds is
    /// more than this, so up to a second later. `nil` by default: no limit.
    public var maximumConnectionLifetime: TimeInterval?
    /// The most a connection may sit unused and still be reused, in seconds (whole, at least 1;
    /// counted like ``maximumConnectionLifetime``). `nil` by default: libcurl's 118 seconds.
    public var maximumConnectionIdleTime: TimeInterval?
    /// The most connections the session keeps open at once, to all hosts together; requests beyond
    /// it wait for a connection. `0` means no limit. `nil` by default: no limit
    /// (``httpMaximumConnectionsPerHost`` still applies per host).
    public var maximumConnections: Int?
    /// The most HTTP/2 streams the session opens on one connection (at least 1); further requests
    /// wait or, up to ``httpMaximumConnectionsPerHost``, open another connection. `nil` by default:
    /// libcurl's 100.
    public var http2MaximumConcurrentStreams: Int?
    /// TCP keep-alive probes on idle connections. `nil` by default: none.
    public var tcpKeepAlive: TCPKeepAlive?
    /// A DNS-over-HTTPS endpoint (RFC 8484) that resolves the session's host names instead of the
    /// system resolver — `https://dns.example/dns-query`. Its certificate is verified like a
    /// server's: against ``trustedRootCertificates`` when the session has some, else the system
    /// roots. A name it does not know fails with ``TransportErrorCode/cannotResolveHost``.
    /// `nil` by default: the system resolver.
    public var dnsOverHTTPSURL: URL?
    /// Which IP versions host names resolve to. ``IPVersion/any`` by default.
    public var ipVersion: IPVersion = .any
    /// How long a resolved name is kept before asking DNS again, in seconds (`0`: never kept).
    /// `nil` by default: libcurl's 60 seconds.
    public var dnsCacheLifetime: TimeInterval?
    /// Fixed addresses for host names (curl's `--resolve`); DNS is not asked for them. Unlike
    /// ``connectTo``, the entry is per port and takes several addresses. An unusable entry (a host
    /// with `:` or `,`, a port outside 1...65535, an address that is not IPv4 or IPv6) fails
    /// requests with ``CurlfireError/invalidHostResolution(host:)``. Empty by default.
    public var hostResolutions: [HostResolution] = []
    /// How long an IPv6 connection attempt runs alone before IPv4 is tried beside it (RFC 8305's
    /// Connection Attempt Delay), in seconds. `nil` by default: libcurl's 0.2 s.
    public var happyEyeballsDelay: TimeInterval?
    /// A Unix domain socket every request of the session goes through instead of TCP — the Docker
    /// daemon's `/var/run/docker.sock`, say — with the URL's host still sent as `Host`
    /// (and, for HTTPS, checked by TLS). A name that begins with `@` is a Linux abstract socket
    /// (`@name`). Connections to the socket are reused like TCP ones. A request whose URL is
    /// `http+unix://` or `https+unix://` names its own socket instead. A socket that does not exist
    /// or refuses fails with ``TransportErrorCode/cannotConnect``. `nil` by default: TCP.
    public var unixSocketPath: String?
    /// Root certificates to trust instead of the system's (a private CA). Empty by default: the system roots.
    public var trustedRootCertificates: [Certificate] = []
    /// A client certificate and key for mutual TLS. `nil` by default.
    public var clientIdentity: ClientIdentity?
    /// The HTTP cache of the session's data requests (RFC 9111, a private cache). `nil` by default:
    /// nothing is cached. Downloads and streams are never cached.
    public var responseCache: ResponseCache?
    /// The URL that relative request strings resolve against, as `AFHTTPSessionManager(baseURL:)`:
    /// with `https://api.example.com/v1`, `request("users/7")` asks for
    /// `https://api.example.com/v1/users/7` (a base path without a trailing slash is a directory);
    /// an absolute URL ignores it. Applies to the URL forms of `request`, `download`, `upload` and
    /// `streamRequest`, not to a `URLRequestConvertible`. `nil` by default.
    public var baseURL: URL?
    /// Whether identical safe requests in flight at the same time share one transfer (single
    /// flight). `false` by default. A `GET` or `HEAD` data request without a body and without
    /// progress closures is identical to another with the same URL, the same headers as sent (after
    /// adapters), the same credentials and the same `timeoutInterval`; the first one's transfer is sent, the others wait for it,
    /// and each gets its own response with the same data. Cancelling one leaves the others' transfer
    /// running (it is cancelled when every caller has left). Concurrent misses of the
    /// ``responseCache`` collapse the same way. Downloads, uploads and streams are never coalesced.
    public var coalescesIdenticalRequests = false
    /// Whether the session posts the `Notification.Name.Task` notifications (`DidResume`,
    /// `DidSuspend`, `DidCancel`, `DidComplete`) on `NotificationCenter.default`, as Alamofire 4
    /// does. `true` by default.
    ///
    /// Foundation cannot tell whether anyone observes a name, so posting starts the first time any
    /// code reads one of the four `Notification.Name.Task` names (observing one by name reads it);
    /// until then nothing is posted and the posts cost nothing. After that each post is paid for
    /// whether or not it is observed (up to about a tenth of a small request's CPU, docs/Performance.md).
    /// An observer that makes a name from its raw string or observes every name (`name: nil`) reads
    /// one of the names once beforehand. A session whose code observes none of them can set `false`;
    /// ``EventMonitor``s, which cost nothing when none is attached, receive the same events either way.
    public var postsTaskNotifications = true
    /// The TLS versions, cipher suites and groups of the session's handshakes, for hosts without a
    /// policy in ``tlsProtocolPolicies``. ``TLSProtocolPolicy/default`` by default: TLS 1.2 and 1.3
    /// with OpenSSL's default suites and groups.
    public var tlsProtocolPolicy: TLSProtocolPolicy = .default
    /// TLS protocol policies per host, keyed and matched as ``ServerTrustPolicyManager`` keys are
    /// (`"api.example.com"`, `"127.0.0.1"`, `"*.example.com"`; an exact key wins over a wildcard).
    /// Each hop of a request uses its own host's policy. Empty by default.
    public var tlsProtocolPolicies: [String: TLSProtocolPolicy] = [:]
    /// A file the secrets of every TLS connection the session makes are appended to, in the NSS key
    /// log format Wireshark reads (`SSLKEYLOGFILE`), for debugging. `nil` by default.
    ///
    /// - Warning: Anyone who can read this file can decrypt every captured exchange of the session,
    ///   passwords and tokens included. Never set it in production builds. The file is created with
    ///   mode 0600 and only appended to; delete it when done. When it cannot be opened, every HTTPS
    ///   request of the session fails with ``CurlfireError/tlsKeyLogFileUnusable(path:error:)``.
    public var tlsKeyLogFile: URL?
    /// The HSTS store (RFC 6797) of the session: `http://` URLs of its known hosts — the first hop
    /// and every redirect hop — are sent as `https://` before any byte goes out in the clear, and
    /// `Strict-Transport-Security` headers teach it new hosts. A header is honoured only from an
    /// HTTPS response whose server trust was evaluated with chain and host validation and
    /// succeeded: libcurl's default verification, or a policy that validates both
    /// (``ServerTrustPolicy/performDefaultEvaluation(validateHost:)`` and
    /// ``ServerTrustPolicy/performRevokedEvaluation(validateHost:revocationFlags:)`` with
    /// `validateHost: true`, the pinning policies with `validateCertificateChain: true` and
    /// `validateHost: true`); never over `http://`, with ``ServerTrustPolicy/disableEvaluation``,
    /// a custom evaluation or without host validation. One store may be shared by several
    /// sessions. `nil` by default: no HSTS.
    public var hstsStore: HSTSStore?
    /// Certificate Transparency requirements by host, keyed like ``ServerTrustPolicyManager``'s
    /// policies (exact host names and one-label wildcards such as `"*.example.com"`): a host with a
    /// ``CertificateTransparencyPolicy`` is accepted only when, besides its trust policy, its
    /// certificate carries enough valid SCTs (embedded, or in the TLS extension, which the session
    /// then requests). Checked in the handshake, before any request byte; a failure is
    /// ``CurlfireError/serverTrustEvaluationFailed(host:reason:)`` with
    /// ``CurlfireError/ServerTrustFailureReason/insufficientSignedCertificateTimestamps(required:found:problems:)``.
    /// Empty by default: no requirement.
    public var certificateTransparencyPolicies: [String: CertificateTransparencyPolicy] = [:]

    /// The default configuration.
    public init() {}
}
