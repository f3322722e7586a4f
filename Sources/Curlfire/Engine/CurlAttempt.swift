import Foundation
import FoundationNetworking
internal import CCurl
internal import COpenSSL

/// What one finished attempt produced, handed from the engine thread to its ``Transfer``.
struct AttemptResult: @unchecked Sendable {
    var request: URLRequest
    /// The response head, made into an `HTTPURLResponse` off the engine thread when first read.
    var lazyResponse: LazyResponse?
    var response: HTTPURLResponse? { lazyResponse?.response }
    var sink: ResponseSink
    var error: CurlfireError?
    var metrics: TransferMetrics?
    var startTime: TimeInterval
    var initialResponseTime: TimeInterval
    var completedTime: TimeInterval
    /// Request-body bytes the attempt sent (its known length, or what was read when streamed).
    var uploadedBodyBytes: Int64 = 0
}

/// One attempt of a transfer inside the engine: the easy handle's configuration, the libcurl
/// callbacks' state, and the result.
///
/// Created off the engine thread with everything resolved, then owned by the engine thread from
/// the moment it is enqueued (hence `@unchecked Sendable`: ownership moves, it is never shared).
/// libcurl's callbacks receive it as an unretained pointer; the engine's `active` table keeps it
/// alive until the handle is removed from the multi handle.
final class CurlAttempt: @unchecked Sendable {
    let transfer: Transfer
    let request: URLRequest
    let options: TransferOptions
    let sink: ResponseSink
    /// The sink's optional roles, resolved once: the callbacks run per chunk and a protocol cast is
    /// a conformance lookup each time.
    private let headObserver: ResponseHeadObserver?
    private let backPressure: BackPressureSink?
    let reader: BodyReader
    let bodyLength: Int64
    let startTime: TimeInterval

    private(set) var easy: UnsafeMutableRawPointer?
    private let headerList: UnsafeMutablePointer<curl_slist>?
    /// The `Accept-Encoding` value for `CURLOPT_ACCEPT_ENCODING`, from the request or the session.
    private let acceptEncoding: String?
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    private var head = ResponseHead()
    private var firstByteTime: TimeInterval?
    private var tls: (version: String?, cipher: String?) = (nil, nil)
    private var isHTTPS = false
    private var lastProgress: (Int64, Int64, Int64, Int64) = (-1, -1, -1, -1)
    /// Set when the sink refused bytes, to report a write failure precisely.
    private var sinkFailed = false
    /// Set by the engine when the attempt was cancelled.
    var cancelled = false
    /// Set by the engine while the transfer is suspended. The data callbacks then ask libcurl to
    /// pause: `curl_easy_pause` alone is lost when it lands before the transfer has begun.
    var paused = false {
        didSet { if oldValue && !paused { idleClock.restart() } }
    }
    /// When bytes last moved; the engine fails the attempt once it has been idle too long.
    private(set) var idleClock: IdleClock
    /// Set by the engine when it ended the attempt for being idle.
    var idleTimedOut = false

    init(transfer: Transfer, request: URLRequest, body: UploadBody, options: TransferOptions, sink: ResponseSink,
         startTime: TimeInterval) {
        self.transfer = transfer
        self.request = request
        self.options = options
        self.sink = sink
        reader = BodyReader(body)
        bodyLength = body.length ?? 0
        self.startTime = startTime
        idleClock = IdleClock(seconds: options.requestTimeout)
        headObserver = sink as? ResponseHeadObserver
        backPressure = sink as? BackPressureSink
        (headerList, acceptEncoding) = Self.makeHeaderList(request: request, defaults: options.defaultHeaders,
                                                          hasBody: !body.isEmpty)
    }

    /// libcurl writes a detailed message for a failure here (`CURLOPT_ERRORBUFFER`); freed in deinit.
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return buffer
    }()

    deinit {
        if let headerList { curl_slist_free_all(headerList) }
        if let connectToList { curl_slist_free_all(connectToList) }
        errorBuffer.deallocate()
    }

    // MARK: - Configuration (engine thread)

    /// The first option libcurl refused while configuring, with the source line that set it.
    private var refused: (code: CURLcode, line: Int)?

    /// Records a refused option (the first one is reported as the attempt's error).
    private func set(_ code: CURLcode, line: Int = #line) {
        if code != CURLE_OK, refused == nil { refused = (code, line) }
    }

    /// Configures `easy` for this attempt. Returns an error instead of starting when a setting is refused.
    func configure(easy: UnsafeMutableRawPointer, share: UnsafeMutableRawPointer?) -> CurlfireError? {
        self.easy = easy
        let handle = UnsafeMutableRawPointer(easy)
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let url = request.url else { return .invalidURL(url: "nil") }
        isHTTPS = url.scheme?.lowercased() == "https"
        if let failure = reader.open() { return failure }


        set(cfcurl_easy_setopt_string(handle, CURLOPT_URL, url.absoluteString))
        set(cfcurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(cfcurl_easy_setopt_ptr(handle, CURLOPT_PRIVATE, me))
        if let share { set(cfcurl_easy_setopt_ptr(handle, CURLOPT_SHARE, UnsafeMutableRawPointer(share))) }
        set(cfcurl_easy_setopt_data_cb(handle, CURLOPT_WRITEFUNCTION, curlfireWriteCallback))
        set(cfcurl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, me))
        set(cfcurl_easy_setopt_data_cb(handle, CURLOPT_HEADERFUNCTION, curlfireHeaderCallback))
        set(cfcurl_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, me))
        set(cfcurl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, options.followRedirects ? 1 : 0))
        set(cfcurl_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        set(cfcurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(cfcurl_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        set(cfcurl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, options.maximumRedirects))
        configureMethodAndBody(handle)
        configureHeaders(handle)
        configureTimeouts(handle)
        configureTransport(handle)
        configureTLS(handle)
        if options.reportsProgress {
            set(cfcurl_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0))
            set(cfcurl_easy_setopt_xferinfo_cb(handle, curlfireProgressCallback))
            set(cfcurl_easy_setopt_ptr(handle, CURLOPT_XFERINFODATA, me))
        }
        guard let refused else { return nil }
        return .sessionTaskFailed(code: CurlCodeMapping.transportErrorCode(for: refused.code),
                                  message: "libcurl refused an option (\(CurlCodeMapping.message(for: refused.code)), CurlAttempt.swift:\(refused.line))")
    }

    private func configureMethodAndBody(_ handle: UnsafeMutableRawPointer) {
        let method = request.httpMethod?.uppercased() ?? "GET"
        let hasBody = reader.hasBody
        switch method {
        case "GET" where !hasBody:
            set(cfcurl_easy_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case "HEAD":
            set(cfcurl_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
        default:
            if hasBody || method == "POST" || method == "PUT" || method == "PATCH" {
                let me = Unmanaged.passUnretained(self).toOpaque()
                set(cfcurl_easy_setopt_long(handle, CURLOPT_POST, 1))
                set(cfcurl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodyLength)))
                set(cfcurl_easy_setopt_data_cb(handle, CURLOPT_READFUNCTION, curlfireReadCallback))
                set(cfcurl_easy_setopt_ptr(handle, CURLOPT_READDATA, me))
                set(cfcurl_easy_setopt_seek_cb(handle, curlfireSeekCallback))
                set(cfcurl_easy_setopt_ptr(handle, CURLOPT_SEEKDATA, me))
            }
            if method != "POST" {
                set(cfcurl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
            }
        }
    }

    private func configureHeaders(_ handle: UnsafeMutableRawPointer) {
        set(cfcurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
        if let acceptEncoding {
            set(cfcurl_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, acceptEncoding))
        }
        if let credential = options.credential {
            set(cfcurl_easy_setopt_string(handle, CURLOPT_USERNAME, credential.user))
            set(cfcurl_easy_setopt_string(handle, CURLOPT_PASSWORD, credential.password))
            set(cfcurl_easy_setopt_long(handle, CURLOPT_HTTPAUTH, cfcurl_auth_basic_digest()))
        }
    }

    /// Builds libcurl's header list from the request's headers plus the session's defaults the
    /// request does not set. Runs in `init`, on the caller's thread, to keep the engine thread free.
    private static func makeHeaderList(request: URLRequest, defaults: HTTPHeaders, hasBody: Bool)
        -> (list: UnsafeMutablePointer<curl_slist>?, acceptEncoding: String?) {
        var list: UnsafeMutablePointer<curl_slist>?
        var acceptEncoding: String?
        var sawExpect = false
        var sawContentType = false
        let fields = request.allHTTPHeaderFields ?? [:]
        func append(_ name: String, _ value: String) {
            if HeaderName.equals(name, "accept-encoding") {
                acceptEncoding = value // sent by libcurl through CURLOPT_ACCEPT_ENCODING, which also decodes
                return
            }
            if HeaderName.equals(name, "expect") { sawExpect = true }
            if HeaderName.equals(name, "content-type") { sawContentType = true }
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        for (name, value) in fields { append(name, value) }
        for header in defaults where !fields.keys.contains(where: { HeaderName.equals($0, header.name) }) {
            append(header.name, header.value)
        }
        if !sawExpect { list = curl_slist_append(list, "Expect:") }
        if !sawContentType, hasBody || request.httpMethod == "POST" {
            // libcurl would invent `application/x-www-form-urlencoded`; send what the user set, or nothing.
            list = curl_slist_append(list, "Content-Type:")
        }
        return (list, acceptEncoding)
    }

    private func configureTimeouts(_ handle: UnsafeMutableRawPointer) {
        let idle = max(options.requestTimeout, 0.001)
        set(cfcurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(idle * 1000)))
        // An idle timeout: fail when fewer than 1 byte/s arrive for `idle` seconds (whole seconds in libcurl).
        set(cfcurl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        set(cfcurl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(idle.rounded(.up)))))
        if options.resourceTimeout > 0, options.resourceTimeout < Double(Int.max / 1000) {
            set(cfcurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(options.resourceTimeout * 1000)))
        }
    }

    private func configureTransport(_ handle: UnsafeMutableRawPointer) {
        switch options.httpVersion {
        case .http1_1: set(cfcurl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1))
        case .http2PriorKnowledge:
            set(cfcurl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
        case .automatic, .http2:
            set(cfcurl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS))
        }
        if isHTTPS, options.httpVersion != .http1_1 {
            set(cfcurl_easy_setopt_long(handle, CURLOPT_PIPEWAIT, 1))
        }
        if options.cookiesEnabled { set(cfcurl_easy_setopt_string(handle, CURLOPT_COOKIEFILE, "")) }
        if !options.connectTo.isEmpty {
            for entry in options.connectTo { connectToList = curl_slist_append(connectToList, entry) }
            set(cfcurl_easy_setopt_slist(handle, CURLOPT_CONNECT_TO, connectToList))
        }
        if options.receiveBufferSize > 0 {
            // libcurl 7.88 refuses a new size once the handle has allocated its buffer (a pooled
            // handle); pooled handles belong to this session, whose size they already have.
            _ = cfcurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, options.receiveBufferSize)
        }
        switch options.proxy {
        case .environment: break // libcurl reads http_proxy, https_proxy, no_proxy
        case .none: set(cfcurl_easy_setopt_string(handle, CURLOPT_PROXY, ""))
        case let .http(host, port), let .https(host, port), let .socks5(host, port):
            set(cfcurl_easy_setopt_string(handle, CURLOPT_PROXY, options.proxy.curlURL(host: host, port: port)))
        }
    }

    private func configureTLS(_ handle: UnsafeMutableRawPointer) {
        guard isHTTPS else { return }
        set(cfcurl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        // Keep CAINFO (the system bundle) but drop Debian's CA directory: libcurl then caches the
        // parsed root store across connections (about 16x faster handshakes, see docs/Performance.md).
        set(cfcurl_easy_setopt_ptr(handle, CURLOPT_CAPATH, nil))
        if let trust = options.trust {
            // The policy checks the host itself (or deliberately does not).
            set(cfcurl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0))
            set(cfcurl_easy_setopt_sslctx_cb(handle, curlfireSSLContextCallback))
            set(cfcurl_easy_setopt_ptr(handle, CURLOPT_SSL_CTX_DATA, Unmanaged.passUnretained(trust as AnyObject).toOpaque()))
        } else {
            set(cfcurl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        }
        if let client = options.clientCertificate {
            set(cfcurl_easy_setopt_string(handle, CURLOPT_SSLCERT, client.certificatePath))
            set(cfcurl_easy_setopt_string(handle, CURLOPT_SSLCERTTYPE, client.type))
            if let key = client.keyPath { set(cfcurl_easy_setopt_string(handle, CURLOPT_SSLKEY, key)) }
            if let password = client.password { set(cfcurl_easy_setopt_string(handle, CURLOPT_KEYPASSWD, password)) }
        }
    }

    // MARK: - Callbacks (engine thread)

    func receiveHeader(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        if firstByteTime == nil {
            firstByteTime = Date.timeIntervalSinceReferenceDate
            if isHTTPS { readTLSInfo() }
        }
        idleClock.touch()
        head.consume(line)
        if head.isComplete {
            let length = head.value(for: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            sink.prepare(expectedLength: length)
            // Downloads decide here how the body lands in their file (200: from byte 0, 206: append).
            headObserver?.responseHeadDidComplete(head)
        }
        return true
    }

    /// Outcome of offering a chunk to the sink.
    enum WriteOutcome { case accepted, paused, failed }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        if transfer.isCancelFlagged {
            // Stop now rather than when the engine next handles its commands (finish maps it).
            cancelled = true
            return .failed
        }
        if paused { return .paused }
        idleClock.touch()
        if sink.write(bytes) {
            // lifecycle: a stream whose consumers are behind pauses here; they unpause it (StreamSink.swift).
            if let backPressure, backPressure.shouldPauseAfterWrite() { paused = true }
            return .accepted
        }
        sinkFailed = true
        return .failed
    }

    /// Bytes copied, 0 at the end, -1 on error, `nil` to pause.
    func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        if paused { return nil }
        let read = reader.read(into: buffer, capacity: capacity)
        if read > 0 { idleClock.touch() }
        return read
    }

    func seekBody(to offset: Int64) -> Bool { reader.seek(to: offset) }

    func progress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) {
        let current = (downloadTotal, downloaded, uploadTotal, uploaded)
        guard current != lastProgress else { return }
        let uploadChanged = current.2 != lastProgress.2 || current.3 != lastProgress.3
        let downloadChanged = current.0 != lastProgress.0 || current.1 != lastProgress.1
        lastProgress = current
        if uploadChanged, uploadTotal > 0 || bodyLength > 0 {
            transfer.reportUploadProgress(completed: uploaded, total: max(uploadTotal, bodyLength))
        }
        if downloadChanged, downloaded > 0 {
            // A resumed download counts the bytes it already had (libcurl counts this attempt's only).
            let base = headObserver?.bytesBeforeBody ?? 0
            transfer.reportDownloadProgress(completed: base + downloaded,
                                            total: downloadTotal > 0 ? base + downloadTotal : nil)
        }
    }

    private func readTLSInfo() {
        guard let easy else { return }
        var raw: UnsafeMutableRawPointer?
        guard cfcurl_easy_getinfo_ptr(UnsafeMutableRawPointer(easy), CURLINFO_TLS_SSL_PTR, &raw) == CURLE_OK,
              let info = raw?.assumingMemoryBound(to: curl_tlssessioninfo.self),
              info.pointee.backend == CURLSSLBACKEND_OPENSSL,
              let ssl = info.pointee.internals
        else { return }
        let sslPointer = OpaquePointer(ssl)
        if let version = SSL_get_version(sslPointer) { tls.version = String(cString: version) }
        if let cipher = SSL_get_current_cipher(sslPointer), let name = SSL_CIPHER_get_name(cipher) {
            tls.cipher = String(cString: name)
        }
    }

    // MARK: - Completion (engine thread)

    /// Builds the attempt's result once libcurl reports it done with `code`.
    func finish(code: CURLcode) -> AttemptResult {
        let now = Date.timeIntervalSinceReferenceDate
        var error: CurlfireError?
        var metrics: TransferMetrics?
        var response: LazyResponse?
        // Taken on success too, so no stale verdict stays keyed to this (recycled) easy handle.
        let trustFailure = easy.flatMap { options.trust?.takeFailure(forHandshake: UInt(bitPattern: $0)) }
        if let easy {
            metrics = CurlInfo.metrics(easy, startDate: Date(timeIntervalSinceReferenceDate: startTime), tls: tls)
            let finalURL = metrics?.effectiveURL ?? request.url!
            if head.statusCode > 0 { response = LazyResponse(head: head, url: finalURL) }
        }
        if cancelled {
            error = .explicitlyCancelled
        } else if code != CURLE_OK {
            error = mapError(code, trustFailure: trustFailure)
        }
        reader.finish()
        return AttemptResult(request: request, lazyResponse: response, sink: sink, error: error, metrics: metrics,
                             startTime: startTime, initialResponseTime: firstByteTime ?? now, completedTime: now,
                             uploadedBodyBytes: max(bodyLength, lastProgress.3))
    }

    /// Why libcurl's own verification (no policy for the host) rejected the server, from OpenSSL's
    /// verify result; a zero result with a failure means libcurl's host-name check refused it.
    private func defaultVerificationFailure(_ easy: UnsafeMutableRawPointer) -> CurlfireError.ServerTrustFailureReason {
        let result = CurlInfo.long(easy, CURLINFO_SSL_VERIFYRESULT)
        switch Int32(result) {
        case X509_V_OK: return .hostMismatch
        case X509_V_ERR_CERT_HAS_EXPIRED: return .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: return .certificateNotYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostMismatch
        case X509_V_ERR_CERT_REVOKED: return .revoked(message: String(cString: X509_verify_cert_error_string(result)))
        default: return .chainInvalid(verifyError: result, message: String(cString: X509_verify_cert_error_string(result)))
        }
    }

    private func mapError(_ code: CURLcode, trustFailure: CurlfireError.ServerTrustFailureReason?) -> CurlfireError {
        if let failure = reader.failure { return failure }
        if idleTimedOut {
            let seconds = String(format: "%g", options.requestTimeout)
            return .sessionTaskFailed(code: .timedOut,
                                      message: "No bytes moved for \(seconds) s (timeoutIntervalForRequest)")
        }
        let host = request.url?.host ?? ""
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR,
           options.trust != nil, let reason = trustFailure {
            return .serverTrustEvaluationFailed(host: host, reason: reason)
        }
        if code == CURLE_PEER_FAILED_VERIFICATION, options.trust == nil, let easy {
            return .serverTrustEvaluationFailed(host: host, reason: defaultVerificationFailure(easy))
        }
        var message = CurlCodeMapping.message(for: code)
        if errorBuffer[0] != 0, let detail = String(validatingCString: errorBuffer) { message = detail }
        if sinkFailed, let sinkError = (sink as? FailableSink)?.failure { return sinkError }
        var transport = CurlCodeMapping.transportErrorCode(for: code)
        // libcurl has no dedicated codes for these malformed replies; its message names them.
        if code == CURLE_UNSUPPORTED_PROTOCOL && message.contains("HTTP/0.9") {
            transport = .badServerResponse
        } else if code == CURLE_UNSUPPORTED_PROTOCOL && !message.contains("rotocol") {
            // The error buffer keeps libcurl's first message: after a reused connection turned out
            // dead ("Recv failure: …") and the retry on a new one met a non-HTTP reply, it no longer
            // names HTTP/0.9. Unsupported schemes never get here (RequestChecks, redirect protocols).
            transport = .badServerResponse
            message = "Received HTTP/0.9 when not allowed (earlier on this request: \(message))"
        } else if code == CURLE_OUT_OF_MEMORY && !head.isComplete {
            // libcurl refuses a header line over 100 KB ("Avoided giant realloc for header") with
            // its out-of-memory code, before the head is complete.
            transport = .badServerResponse
            message = "The response head is too large or malformed (libcurl: \(message))"
        } else if transport == .connectionLost || transport == .tlsHandshakeFailed,
                  CurlCodeMapping.isClientCertificateAlert(message) {
            // TLS 1.3 servers refuse a missing or unknown client certificate after the handshake,
            // so libcurl sees a receive error; OpenSSL's alert text in the message says why.
            transport = .clientCertificateRejected
        }
        return .sessionTaskFailed(code: transport, message: message)
    }

}

/// A sink that can fail with a precise error (a download's file sink).
protocol FailableSink: ResponseSink {
    var failure: CurlfireError? { get }
}
