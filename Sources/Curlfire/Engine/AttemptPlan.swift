import Foundation
import FoundationNetworking
internal import CCurl

/// Receives the libcurl options of an ``AttemptPlan``: the engine's writer sets them on an easy
/// handle; tests record them (no libcurl call is needed to know what a hop would send).
protocol CurlOptionWriter {
    /// A `long` option.
    mutating func long(_ option: CURLoption, _ value: Int)
    /// A string option (`nil` clears it).
    mutating func string(_ option: CURLoption, _ value: String?)
    /// A `curl_off_t` option.
    mutating func offset(_ option: CURLoption, _ value: Int64)
    /// A `curl_blob` option (libcurl copies the bytes).
    mutating func blob(_ option: CURLoption, _ value: [UInt8])
    /// `CURLOPT_SSL_CTX_FUNCTION` with `CURLOPT_SSL_CTX_DATA` = `trust`: the host's trust evaluation
    /// in the handshake.
    mutating func trustEvaluation(_ trust: any TLSContextConfiguring)
}

/// What one attempt — one hop of a request — sends and how it trusts: the URL, method, headers,
/// timeouts, transport settings, and for HTTPS the trust evaluation and client identity of the
/// hop's own host.
///
/// Made off the engine thread for every hop (Curlfire follows redirects itself, so a redirect to
/// another host gets that host's policy, CA store and client identity, never the first host's).
/// ``write(to:)`` lists the libcurl options; it is pure, so the plan is unit-tested without a
/// network (AttemptPlanTests).
struct AttemptPlan: Sendable {
    /// The request of this hop, in its plain form until something needs a `URLRequest`.
    let head: LazyRequest
    /// ``head`` as Foundation's type (built on each read from a plain head).
    var request: URLRequest { head.urlRequest }
    /// The upper-cased method.
    let method: String
    /// Whether a body is sent, and its length.
    let hasBody: Bool
    let bodyLength: Int64
    /// The resolved settings (timeouts, version, proxy, trust, client certificate, …).
    var options: AttemptOptions { _read { yield optionsBox.value } } // in place: no copy of the options
    /// The settings behind one reference: the plan is copied several times per attempt, and the
    /// settings are 225 bytes with a dozen references.
    private let optionsBox: ImmutableBox<AttemptOptions>
    /// The header lines for `CURLOPT_HTTPHEADER` (`Name: value`, `Name;` for an empty value,
    /// `Name:` to suppress a header libcurl would add).
    let headerLines: [String]
    /// The `Accept-Encoding` value, handed to `CURLOPT_ACCEPT_ENCODING` so libcurl also decodes.
    let acceptEncoding: String?
    /// The session's ready-made list when ``headerLines`` are exactly its plain lines.
    let sharedHeaderList: SessionHeaderLines?
    /// Whether the hop goes over TLS.
    let isHTTPS: Bool
    /// Whether the hop's transfer has a connection to itself while it runs: HTTP/1.1, which libcurl
    /// uses over cleartext unless told HTTP/2 (over TLS it may negotiate HTTP/2 and multiplex).
    var usesOwnConnection: Bool {
        isHTTPS ? options.httpVersion == .http1_1
                : options.httpVersion == .automatic || options.httpVersion == .http1_1
    }
    /// `CURLOPT_URL`: made once (Foundation builds a new `String` on every `absoluteString`, and
    /// ``write(to:)`` may run more than once per attempt, EasyHandleReuse.swift).
    private let curlURL: String?
    /// The request URL's `absoluteString` when it is ``curlURL`` (no Unix socket route), for the
    /// metrics' comparison with libcurl's effective URL without building the string again.
    var requestURLText: String? { options.unixSocket == nil ? curlURL : nil }

    /// Plans a hop.
    ///
    /// - Parameters:
    ///   - request: the hop's request (adapted, or the redirect target).
    ///   - body:    the body it sends.
    ///   - options: the settings resolved for the hop's host (``SessionManager/planOptions(for:credential:reportsProgress:)``).
    init(request: URLRequest, body: UploadBody, options: AttemptOptions) {
        self.init(request: .built(request), body: body, optionsBox: ImmutableBox(options))
    }

    /// Plans a hop with settings already boxed (``init(request:body:optionsBox:)`` for a built request).
    init(request: URLRequest, body: UploadBody, optionsBox: ImmutableBox<AttemptOptions>) {
        self.init(request: .built(request), body: body, optionsBox: optionsBox)
    }

    /// Plans a hop with settings already boxed: a session hands consecutive plain hops the same box
    /// (``AttemptOptionsCache``), so planning allocates none.
    ///
    /// - Parameters:
    ///   - request:    the hop's request (adapted, or the redirect target).
    ///   - body:       the body it sends.
    ///   - optionsBox: the settings resolved for the hop's host, boxed.
    init(request: LazyRequest, body: UploadBody, optionsBox: ImmutableBox<AttemptOptions>) {
        // Fields are read through the box: a local copy of the options (about 520 bytes, dozens of
        // references) was retained and released whole for three of them.
        self.head = request
        self.optionsBox = optionsBox
        let scheme = request.url?.lowercasedScheme
        isHTTPS = scheme == "https" || scheme == "https+unix"
        curlURL = optionsBox.value.unixSocket?.curlURL ?? request.url?.absoluteString
        method = request.httpMethod.map(Self.uppercased) ?? "GET"
        hasBody = !body.isEmpty
        // -1: a stream of unknown length goes chunked (HTTP/1.1) or as DATA frames until its end (HTTP/2).
        bodyLength = body.length ?? (body.stream != nil ? -1 : 0)
        if let session = optionsBox.value.sessionHeaderLines, session.fits(request, hasBody: hasBody) {
            headerLines = session.plainLines
            acceptEncoding = session.acceptEncoding
            sharedHeaderList = session
        } else {
            (headerLines, acceptEncoding) = Self.headerLines(request: request,
                                                             defaults: optionsBox.value.defaultHeaders,
                                                             hasBody: hasBody)
            sharedHeaderList = nil
        }
    }

    /// `method.uppercased()`, without making a new string when it is upper case already (every
    /// standard method; `uppercased()` built one for every hop).
    private static func uppercased(_ method: String) -> String {
        // A lower-case ASCII letter, or any non-ASCII byte (Unicode's case mapping): the full conversion.
        for byte in method.utf8 where byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) {
            return method.uppercased()
        }
        return method
    }

    /// Whether libcurl reads a request body through the read callback (a body, or POST/PUT/PATCH).
    var usesBodyCallbacks: Bool {
        switch method {
        case "GET" where !hasBody, "HEAD": return false
        default: return hasBody || method == "POST" || method == "PUT" || method == "PATCH"
        }
    }

    // MARK: - Options

    /// Lists the hop's libcurl options (callbacks, header lists and buffers are the attempt's own).
    func write<Writer: CurlOptionWriter>(to writer: inout Writer) {
        writer.string(CURLOPT_URL, curlURL)
        if let socket = options.unixSocket {
            writer.string(socket.isAbstract ? CURLOPT_ABSTRACT_UNIX_SOCKET : CURLOPT_UNIX_SOCKET_PATH, socket.path)
        }
        writer.long(CURLOPT_NOSIGNAL, 1)
        // Curlfire follows redirects itself: every hop is planned for its own host.
        writer.long(CURLOPT_FOLLOWLOCATION, 0)
        writer.string(CURLOPT_PROTOCOLS_STR, "http,https")
        writeMethod(to: &writer)
        if let acceptEncoding { writer.string(CURLOPT_ACCEPT_ENCODING, acceptEncoding) }
        if let credential = options.credential {
            writer.string(CURLOPT_USERNAME, credential.user)
            writer.string(CURLOPT_PASSWORD, credential.password)
            writer.long(CURLOPT_HTTPAUTH, cfcurl_auth_basic_digest())
        }
        writeTimeouts(to: &writer)
        writeTransport(to: &writer)
        // Keep CAINFO (the system bundle) but drop Debian's CA directory: libcurl then caches the
        // parsed root store across connections (about 16x faster handshakes, see docs/Performance.md).
        // On every hop, not only HTTPS ones: libcurl copies the directory's path into each new
        // connection's TLS settings, TLS or not, one allocation per plain-HTTP request for nothing.
        writer.string(CURLOPT_CAPATH, nil)
        if isHTTPS { writeTLS(to: &writer) }
        if options.reportsProgress { writer.long(CURLOPT_NOPROGRESS, 0) }
    }

    private func writeMethod<Writer: CurlOptionWriter>(to writer: inout Writer) {
        switch method {
        case "GET" where !hasBody:
            writer.long(CURLOPT_HTTPGET, 1)
        case "HEAD":
            writer.long(CURLOPT_NOBODY, 1)
        default:
            if usesBodyCallbacks {
                writer.long(CURLOPT_POST, 1)
                writer.offset(CURLOPT_POSTFIELDSIZE_LARGE, bodyLength)
            }
            if method != "POST" { writer.string(CURLOPT_CUSTOMREQUEST, method) }
        }
    }

    private func writeTimeouts<Writer: CurlOptionWriter>(to writer: inout Writer) {
        let idle = RequestTimeLimits.clamped(options.requestTimeout)
        let connect = options.connectTimeout.map(RequestTimeLimits.clamped) ?? idle
        writer.long(CURLOPT_CONNECTTIMEOUT_MS, Int(connect * 1000))
        // The idle timeout itself is the engine's (CurlAttempt.idleClock, IdleClock.swift): it fails
        // an attempt that moved no byte for `idle` seconds from the moment it entered libcurl, so
        // libcurl's low-speed check would only ever fire after it, and re-armed a timer on every pass.
        // timeoutIntervalForResource is the request's deadline, kept by its state machine across
        // attempts, delays and hops.
    }

    private func writeTransport<Writer: CurlOptionWriter>(to writer: inout Writer) {
        switch options.httpVersion {
        case .http1_1: writer.long(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2PriorKnowledge: writer.long(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        case .http2: writer.long(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_0)
        case .automatic: writer.long(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        }
        if isHTTPS, options.httpVersion != .http1_1 { writer.long(CURLOPT_PIPEWAIT, 1) }
        if options.cookiesEnabled { writer.string(CURLOPT_COOKIEFILE, "") }
        switch options.ipVersion {
        case .any: break
        case .v4: writer.long(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4))
        case .v6: writer.long(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6))
        }
        if let pool = options.connectionPool {
            if let seconds = pool.lifetimeSeconds { writer.long(CURLOPT_MAXLIFETIME_CONN, seconds) }
            if let seconds = pool.idleSeconds { writer.long(CURLOPT_MAXAGE_CONN, seconds) }
            if let keepAlive = pool.keepAlive {
                writer.long(CURLOPT_TCP_KEEPALIVE, 1)
                writer.long(CURLOPT_TCP_KEEPIDLE, keepAlive.idle)
                writer.long(CURLOPT_TCP_KEEPINTVL, keepAlive.interval)
            }
        }
        if let doh = options.dnsOverHTTPS {
            writer.string(CURLOPT_DOH_URL, doh.url)
            // libcurl's DoH requests verify their server with the handle's CA settings: the session's
            // private roots when it has some, else the system bundle.
            if let roots = doh.trustedRootsPEM { writer.blob(CURLOPT_CAINFO_BLOB, roots) }
        }
        if let seconds = options.dnsCacheSeconds { writer.long(CURLOPT_DNS_CACHE_TIMEOUT, seconds) }
        if let milliseconds = options.happyEyeballsMilliseconds {
            writer.long(CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, milliseconds)
        }
        writeProxy(to: &writer)
    }

    private func writeProxy<Writer: CurlOptionWriter>(to writer: inout Writer) {
        if options.proxy == .none {
            writer.string(CURLOPT_PROXY, "")
            // No proxy, so no proxy TLS: libcurl still copies the proxy's CA file and directory
            // paths into every new connection's settings (two allocations per request for nothing).
            writer.string(CURLOPT_PROXY_CAINFO, nil)
            writer.string(CURLOPT_PROXY_CAPATH, nil)
            return
        }
        // A tunnel's `200 Connection established` is not the response: without it a request whose
        // origin fails the handshake would look answered.
        writer.long(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // Without a route: .environment alone, where libcurl reads http_proxy, https_proxy, no_proxy.
        guard let route = options.proxyRoute else { return }
        if let url = route.url { writer.string(CURLOPT_PROXY, url) }
        if let user = route.user {
            writer.string(CURLOPT_PROXYUSERNAME, user)
            writer.string(CURLOPT_PROXYPASSWORD, route.password ?? "")
        }
        if route.negotiatesAuthentication { writer.long(CURLOPT_PROXYAUTH, cfcurl_auth_any()) }
        if let noProxy = route.noProxy { writer.string(CURLOPT_NOPROXY, noProxy) }
        if let roots = route.trustedRootsPEM {
            // Only these roots: the default bundle and directory would add the system's.
            writer.string(CURLOPT_PROXY_CAINFO, nil)
            writer.string(CURLOPT_PROXY_CAPATH, nil)
            writer.blob(CURLOPT_PROXY_CAINFO_BLOB, roots)
        }
        if let pins = route.pinnedPublicKeys { writer.string(CURLOPT_PROXY_PINNEDPUBLICKEY, pins) }
        // The lines themselves are the attempt's list (CurlAttempt: CURLOPT_PROXYHEADER).
        if !route.headerLines.isEmpty { writer.long(CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE)) }
    }

    private func writeTLS<Writer: CurlOptionWriter>(to writer: inout Writer) {
        writer.long(CURLOPT_SSL_VERIFYPEER, 1)
        if let trust = options.trust {
            // The host's policy checks the host name itself (or deliberately does not).
            writer.long(CURLOPT_SSL_VERIFYHOST, 0)
            writer.trustEvaluation(options.keyLogging ?? trust)
        } else {
            writer.long(CURLOPT_SSL_VERIFYHOST, 2)
            // libcurl verifies; the SSL_CTX callback only adds the key log.
            if let keyLogging = options.keyLogging { writer.trustEvaluation(keyLogging) }
        }
        writeTLSProtocol(to: &writer)
        if let client = options.clientCertificate {
            writer.string(CURLOPT_SSLCERT, client.certificatePath)
            writer.string(CURLOPT_SSLCERTTYPE, client.type)
            if let key = client.keyPath { writer.string(CURLOPT_SSLKEY, key) }
            if let password = client.password { writer.string(CURLOPT_KEYPASSWD, password) }
        }
    }

    /// The host's ``TLSProtocolPolicy``: libcurl keys connection reuse and TLS session resumption on
    /// these options, so a connection made under one policy never serves a hop under another.
    private func writeTLSProtocol<Writer: CurlOptionWriter>(to writer: inout Writer) {
        let policy = options.tlsProtocolPolicy
        let minimum = policy.minimumVersion == .v1_3 ? CURL_SSLVERSION_TLSv1_3 : CURL_SSLVERSION_TLSv1_2
        let maximum: Int
        switch policy.maximumVersion {
        case nil: maximum = CURL_SSLVERSION_MAX_DEFAULT
        case .v1_2?: maximum = CURL_SSLVERSION_MAX_TLSv1_2
        case .v1_3?: maximum = CURL_SSLVERSION_MAX_TLSv1_3
        }
        writer.long(CURLOPT_SSLVERSION, Int(minimum) | Int(maximum))
        if let list = policy.cipherList { writer.string(CURLOPT_SSL_CIPHER_LIST, list) }
        if let suites = policy.tls13CipherSuites { writer.string(CURLOPT_TLS13_CIPHERS, suites) }
        if let groups = policy.groups { writer.string(CURLOPT_SSL_EC_CURVES, groups.joined(separator: ":")) }
    }

    // MARK: - Headers

    /// The `CURLOPT_HTTPHEADER` list of a hop: `lines`, then `Accept-Encoding: value` when the hop
    /// asks for an encoding. ``acceptEncoding`` also goes to `CURLOPT_ACCEPT_ENCODING`, which is what
    /// makes libcurl decode the body; with the header already in the list, libcurl sends that line
    /// instead of formatting its own `Accept-Encoding` line into a new allocation for every request.
    /// An empty value stays libcurl's alone (it then offers every encoding it can decode).
    static func curlHeaderList(_ lines: [String], acceptEncoding: String?) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines { list = curl_slist_append(list, line) }
        if let acceptEncoding, !acceptEncoding.isEmpty {
            list = curl_slist_append(list, "Accept-Encoding: \(acceptEncoding)")
        }
        return list
    }

    /// libcurl's header lines from the request's headers plus the session's defaults the request
    /// does not set (names compared ASCII-case-insensitively without Foundation).
    static func headerLines(request: URLRequest, defaults: HTTPHeaders, hasBody: Bool)
        -> (lines: [String], acceptEncoding: String?) {
        headerLines(request: .built(request), defaults: defaults, hasBody: hasBody)
    }

    /// ``headerLines(request:defaults:hasBody:)`` for a request that may still be in its plain form.
    static func headerLines(request: LazyRequest, defaults: HTTPHeaders, hasBody: Bool)
        -> (lines: [String], acceptEncoding: String?) {
        var lines: [String] = []
        var acceptEncoding: String?
        var sawExpect = false
        var sawContentType = false
        let fields = request.allHTTPHeaderFields ?? [:]
        lines.reserveCapacity(fields.count + defaults.count + 2)
        func append(_ name: String, _ value: String) {
            if HeaderName.equals(name, "accept-encoding") {
                acceptEncoding = value // sent by libcurl through CURLOPT_ACCEPT_ENCODING, which also decodes
                return
            }
            if HeaderName.equals(name, "expect") { sawExpect = true }
            if HeaderName.equals(name, "content-type") { sawContentType = true }
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        for (name, value) in fields { append(name, value) }
        for header in defaults where !fields.keys.contains(where: { HeaderName.equals($0, header.name) }) {
            append(header.name, header.value)
        }
        if !sawExpect { lines.append("Expect:") }
        if !sawContentType, hasBody || request.httpMethod == "POST" {
            // libcurl would invent `application/x-www-form-urlencoded`; send what the user set, or nothing.
            lines.append("Content-Type:")
        }
        return (lines, acceptEncoding)
    }
}
