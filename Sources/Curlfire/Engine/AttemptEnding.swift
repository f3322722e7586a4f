import Foundation
internal import CCurl

/// How one attempt ended, as the engine saw it: one value instead of flags read in priority order.
///
/// ``error`` maps it to the ``CurlfireError`` users see — a pure function, tested as a table
/// (AttemptEndingTests). libcurl's message text is consulted only where libcurl has no code for the
/// cause (a TLS alert refusing the client certificate).
enum AttemptEnding: Sendable {
    /// libcurl finished the transfer (whatever the status code).
    case completed
    /// `cancel()` (or the resource deadline) stopped it.
    case cancelled
    /// No byte moved for `seconds` (`timeoutIntervalForRequest`).
    case idleTimeout(seconds: TimeInterval)
    /// The request's deadline (`timeoutIntervalForResource`, `seconds`) passed while it ran.
    case resourceTimeout(seconds: TimeInterval)
    /// The response sink refused bytes (a download's file could not be written), with its error.
    case sinkFailure(CurlfireError)
    /// The request body could not be read, with the reader's error.
    case bodyReadFailure(CurlfireError)
    /// Nothing was sent: a check refused the request, or libcurl refused an option.
    case refusedBeforeSending(CurlfireError)
    /// The host's trust evaluation rejected the server in the handshake.
    case trustRejected(host: String, reason: CurlfireError.ServerTrustFailureReason)
    /// libcurl failed with `code`; `message` is its detailed text, `headComplete` whether a whole
    /// response head had arrived.
    case transportError(code: CURLcode, message: String, headComplete: Bool)
    /// The session's engine stopped before the attempt could finish.
    case sessionDeinitialized
    /// The proxy (`host:port`) refused the request's credentials, or asked for some.
    case proxyAuthenticationRequired(proxy: String)

    /// Whether the proxy refused to carry the attempt (its answer is then not a response).
    var isProxyRefusal: Bool {
        if case .proxyAuthenticationRequired = self { return true }
        return false
    }
    /// The TLS handshake failed on the hop's ``TLSProtocolPolicy`` (what it refused), with libcurl's message.
    case tlsProtocolRefused(TLSProtocolRefusal, message: String)

    /// The error the attempt reports, `nil` when it completed.
    var error: CurlfireError? {
        switch self {
        case .completed:
            return nil
        case .cancelled:
            return .explicitlyCancelled
        case let .idleTimeout(seconds):
            let text = String(format: "%g", seconds)
            return .sessionTaskFailed(code: .timedOut,
                                      message: "nothing was sent or received for \(text) s (timeoutIntervalForRequest)")
        case let .resourceTimeout(seconds):
            return Self.resourceTimeoutError(seconds: seconds)
        case let .sinkFailure(error), let .bodyReadFailure(error), let .refusedBeforeSending(error):
            return error
        case let .trustRejected(host, reason):
            return .serverTrustEvaluationFailed(host: host, reason: reason)
        case let .transportError(code, message, headComplete):
            return .sessionTaskFailed(code: Self.transportCode(code, message: message, headComplete: headComplete),
                                      message: Self.message(code, message: message, headComplete: headComplete))
        case .sessionDeinitialized:
            return .sessionDeinitialized
        case let .proxyAuthenticationRequired(proxy):
            return .proxyAuthenticationRequired(proxy: proxy)
        case let .tlsProtocolRefused(refusal, message):
            return .sessionTaskFailed(code: .tlsProtocolRefused(refusal), message: message)
        }
    }

    /// The error for a request whose `timeoutIntervalForResource` elapsed, whatever stage it was in.
    static func resourceTimeoutError(seconds: TimeInterval) -> CurlfireError {
        .sessionTaskFailed(code: .timedOut, message: "it took longer than \(String(format: "%g", seconds)) s in all "
                           + "(timeoutIntervalForResource: attempts, retry delays and redirects together)")
    }

    /// The typed cause of a libcurl failure.
    static func transportCode(_ code: CURLcode, message: String, headComplete: Bool) -> TransportErrorCode {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL:
            // Schemes are checked before sending and redirects are followed by Curlfire, so libcurl
            // reports this code only for a reply that is not HTTP (it calls it "HTTP/0.9").
            return .badServerResponse
        case CURLE_OUT_OF_MEMORY where !headComplete:
            // libcurl refuses a header line over 100 KB ("Avoided giant realloc") with this code.
            return .badServerResponse
        default:
            let transport = CurlCodeMapping.transportErrorCode(for: code)
            if transport == .connectionLost || transport == .tlsHandshakeFailed,
               CurlCodeMapping.isClientCertificateAlert(message) {
                // TLS 1.3 servers refuse a missing or unknown client certificate after the handshake,
                // so libcurl sees a receive error; no code says why, OpenSSL's alert text does.
                return .clientCertificateRejected
            }
            return transport
        }
    }

    /// The message users see: libcurl's, with a sentence of context where its own misleads.
    static func message(_ code: CURLcode, message: String, headComplete: Bool) -> String {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL:
            return "The server's reply is not HTTP (libcurl: \(message))"
        case CURLE_OUT_OF_MEMORY where !headComplete:
            return "The response head is too large or malformed (libcurl: \(message))"
        default:
            return message
        }
    }
}
