internal import CCurl

/// Maps libcurl result codes to the typed causes users `switch` on.
enum CurlCodeMapping {
    /// The typed cause for a non-zero `CURLcode`.
    static func transportErrorCode(for code: CURLcode) -> TransportErrorCode {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_CONNECT: return .cannotConnect
        case CURLE_COULDNT_RESOLVE_HOST: return .cannotResolveHost
        case CURLE_COULDNT_RESOLVE_PROXY: return .cannotResolveProxy
        case CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_HTTP2_STREAM, CURLE_HTTP2:
            return .connectionLost
        case CURLE_SEND_ERROR: return .sendFailed
        case CURLE_WEIRD_SERVER_REPLY: return .badServerResponse
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return .unsupportedProtocol
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_USE_SSL_FAILED:
            return .tlsHandshakeFailed
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE:
            return .serverCertificateUntrusted
        case CURLE_SSL_CERTPROBLEM: return .clientCertificateRejected
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_WRITE_ERROR: return .writeFailed
        case CURLE_READ_ERROR, CURLE_SEND_FAIL_REWIND: return .readFailed
        case CURLE_BAD_CONTENT_ENCODING: return .decodingFailed
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        default: return .other(curlCode: Int(code.rawValue))
        }
    }

    /// Whether libcurl's message carries a TLS alert a server sends when it refuses the client
    /// certificate (or its absence): "certificate required", "bad certificate", "unknown ca", …
    static func isClientCertificateAlert(_ message: String) -> Bool {
        let alerts = ["alert certificate required", "alert bad certificate", "alert unknown ca",
                      "alert certificate unknown", "alert certificate revoked", "alert certificate expired",
                      "alert unsupported certificate"]
        let lowered = message.lowercased()
        return alerts.contains { lowered.contains($0) }
    }

    /// libcurl's static text for a code.
    static func message(for code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
