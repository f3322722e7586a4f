import Foundation
internal import CCurl
internal import COpenSSL

/// The TCP (and TLS) connection of one WebSocket: a libcurl easy handle with `CURLOPT_CONNECT_ONLY`,
/// configured from an ``AttemptPlan`` exactly as an HTTPS attempt to the same host is (the host's
/// trust evaluation in the handshake, CA store, client identity, proxy, timeouts), then
/// `curl_easy_send` / `curl_easy_recv` on the socket libcurl connected (`CURLINFO_ACTIVESOCKET`).
///
/// A standalone easy handle, not in the session's multi handle: it is driven by its connection's
/// own thread (libcurl forbids a handle in a multi from being used with `curl_easy_perform`, and
/// `curl_easy_send`/`recv` are only defined for `curl_easy_perform`'s CONNECT_ONLY handles in 7.88).
/// It shares no TLS session cache, so every connection's handshake runs the verify callback.
/// Owned by one thread for its whole life (hence `@unchecked Sendable`: it moves, it is not shared).
final class WebSocketTransport: @unchecked Sendable {
    private let easy: UnsafeMutableRawPointer
    private let plan: AttemptPlan
    private(set) var socket: Int32 = -1
    private var tls = NegotiatedTLS()
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Checked by libcurl's progress callback while connecting: a cancelled connect stops there.
    let cancelled: LockedValue<Bool>

    init?(plan: AttemptPlan, cancelled: LockedValue<Bool>) {
        _ = CurlGlobal.initialized
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.plan = plan
        self.cancelled = cancelled
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }

    /// Sets a plan's options on the handle, remembering the first one libcurl refused.
    private struct Writer: CurlOptionWriter {
        let handle: UnsafeMutableRawPointer
        var refused: CURLcode?

        private mutating func check(_ code: CURLcode) { if code != CURLE_OK, refused == nil { refused = code } }
        mutating func long(_ option: CURLoption, _ value: Int) { check(cfcurl_easy_setopt_long(handle, option, value)) }
        mutating func string(_ option: CURLoption, _ value: String?) {
            if let value { check(cfcurl_easy_setopt_string(handle, option, value)) } else {
                check(cfcurl_easy_setopt_ptr(handle, option, nil))
            }
        }
        mutating func offset(_ option: CURLoption, _ value: Int64) {
            check(cfcurl_easy_setopt_off_t(handle, option, curl_off_t(value)))
        }
        mutating func blob(_ option: CURLoption, _ value: [UInt8]) {
            check(value.withUnsafeBytes { cfcurl_easy_setopt_blob(handle, option, $0.baseAddress, $0.count) })
        }
        mutating func trustEvaluation(_ trust: any TLSContextConfiguring) {
            check(cfcurl_easy_setopt_sslctx_cb(handle, curlfireSSLContextCallback))
            check(cfcurl_easy_setopt_ptr(handle, CURLOPT_SSL_CTX_DATA, Unmanaged.passUnretained(trust as AnyObject).toOpaque()))
            // Marks the handle as Curlfire's own: a handle without CURLINFO_PRIVATE is one of libcurl's
            // DoH queries, which DoHProbeTrust judges as the resolver.
            check(cfcurl_easy_setopt_ptr(handle, CURLOPT_PRIVATE, handle))
        }
    }

    /// Connects (TCP, proxy tunnel, TLS with the host's trust evaluation). Blocks this thread for
    /// at most the plan's connect timeout; returns the typed error on failure.
    func connect() -> CurlfireError? {
        var writer = Writer(handle: easy)
        plan.write(to: &writer)
        writer.long(CURLOPT_CONNECT_ONLY, 1)
        writer.long(CURLOPT_NOPROGRESS, 0)
        switch plan.options.proxy {
        case .http, .https, .environment:
            // Through an HTTP proxy the connection must be a CONNECT tunnel, also for ws://.
            writer.long(CURLOPT_HTTPPROXYTUNNEL, 1)
        default: break
        }
        if let refused = writer.refused {
            return .sessionTaskFailed(code: CurlCodeMapping.transportErrorCode(for: refused),
                                      message: "libcurl refused an option (\(CurlCodeMapping.message(for: refused)))")
        }
        _ = cfcurl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = cfcurl_easy_setopt_xferinfo_cb(easy, webSocketConnectProgress)
        _ = cfcurl_easy_setopt_ptr(easy, CURLOPT_XFERINFODATA, Unmanaged.passUnretained(cancelled).toOpaque())
        let code = curl_easy_perform(easy)
        let trustFailure = plan.options.trust?.takeFailure(forHandshake: UInt(bitPattern: easy))
        if cancelled.withLock({ $0 }) { return .explicitlyCancelled }
        guard code == CURLE_OK else { return failure(code, trustFailure: trustFailure) }
        var fd: curl_socket_t = -1
        guard cfcurl_easy_getinfo_socket(easy, &fd) == CURLE_OK, fd >= 0 else {
            return .sessionTaskFailed(code: .connectionLost, message: "libcurl connected but reported no socket")
        }
        socket = fd
        if plan.isHTTPS { tls = CurlInfo.negotiatedTLS(easy) }
        return nil
    }

    private func failure(_ code: CURLcode, trustFailure: CurlfireError.ServerTrustFailureReason?) -> CurlfireError {
        if let route = plan.options.proxyRoute, ProxyRefusal.refused(
            code: code, status: 0, connectStatus: CurlInfo.long(easy, CURLINFO_HTTP_CONNECTCODE),
            proxyError: CurlInfo.long(easy, CURLINFO_PROXY_ERROR), tunnelled: true) {
            return .proxyAuthenticationRequired(proxy: route.displayName)
        }
        let host = plan.request.url?.host ?? ""
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR, plan.options.trust != nil,
           let trustFailure {
            return .serverTrustEvaluationFailed(host: host, reason: trustFailure)
        }
        if code == CURLE_PEER_FAILED_VERIFICATION, plan.options.trust == nil {
            return .serverTrustEvaluationFailed(host: host, reason: defaultVerificationFailure())
        }
        var message = CurlCodeMapping.message(for: code)
        if errorBuffer[0] != 0, let detail = String(validatingCString: errorBuffer) { message = detail }
        if code == CURLE_SSL_CONNECT_ERROR, plan.isHTTPS,
           let refusal = TLSProtocolRefusal(handshakeMessage: message, policy: plan.options.tlsProtocolPolicy) {
            return .sessionTaskFailed(code: .tlsProtocolRefused(refusal), message: message)
        }
        return AttemptEnding.transportError(code: code, message: message, headComplete: false).error
            ?? .sessionTaskFailed(code: .other(curlCode: Int(code.rawValue)), message: message)
    }

    /// Why libcurl's own verification rejected the server (no policy for the host), as for HTTPS.
    private func defaultVerificationFailure() -> CurlfireError.ServerTrustFailureReason {
        let result = CurlInfo.long(easy, CURLINFO_SSL_VERIFYRESULT)
        switch Int32(result) {
        case X509_V_OK, X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostMismatch
        case X509_V_ERR_CERT_HAS_EXPIRED: return .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: return .certificateNotYetValid
        case X509_V_ERR_CERT_REVOKED: return .revoked(message: String(cString: X509_verify_cert_error_string(result)))
        default: return .chainInvalid(verifyError: result, message: String(cString: X509_verify_cert_error_string(result)))
        }
    }

    /// The connection's metrics (name lookup, connect, TLS) as libcurl measured them.
    func metrics(startDate: Date) -> TransferMetrics {
        CurlInfo.metrics(easy, requestURL: plan.request.url, startDate: startDate, tls: tls)
    }

    /// What one send or receive did.
    enum IOResult {
        /// This many bytes moved (0 from ``receive(into:)`` means the peer closed).
        case moved(Int)
        /// The socket is not ready: poll it.
        case wouldBlock
        /// The connection failed.
        case failed(CurlfireError)
    }

    /// Sends what the socket takes now of `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        var sent = 0
        let code = curl_easy_send(easy, bytes.baseAddress, bytes.count, &sent)
        switch code {
        case CURLE_OK: return .moved(sent)
        case CURLE_AGAIN: return .wouldBlock
        default: return .failed(.sessionTaskFailed(code: .connectionLost, message: "send failed: \(CurlCodeMapping.message(for: code))"))
        }
    }

    /// Receives what is there into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        var received = 0
        let code = curl_easy_recv(easy, buffer.baseAddress, buffer.count, &received)
        switch code {
        case CURLE_OK: return .moved(received)
        case CURLE_AGAIN: return .wouldBlock
        default:
            return .failed(.sessionTaskFailed(code: .connectionLost, message: "receive failed: \(CurlCodeMapping.message(for: code))"))
        }
    }
}

/// libcurl's progress callback while a WebSocket connects: non-zero aborts once `cancel()` was called.
private let webSocketConnectProgress: cfcurl_xferinfo_cb = { userdata, _, _, _, _ in
    guard let userdata else { return 0 }
    return Unmanaged<LockedValue<Bool>>.fromOpaque(userdata).takeUnretainedValue().withLock { $0 } ? 1 : 0
}
