import Curlfire

/// The process exit codes of `curlfire`, by kind of failure.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success (also a 4xx/5xx without `--check-status`).
    case ok = 0
    /// Anything not listed below.
    case failure = 1
    /// A usage error: bad option, item or URL.
    case usage = 2
    /// `--check-status` and a 3xx response that was not followed.
    case redirect = 3
    /// `--check-status` and a 4xx response.
    case clientError = 4
    /// `--check-status` and a 5xx response.
    case serverError = 5
    /// A timeout (`--timeout`, connect or idle).
    case timeout = 6
    /// TLS failed: the server's certificate was not trusted, a pin did not match, the handshake failed
    /// or the client identity was refused.
    case tls = 7
    /// No connection: refused, name resolution failed, or the connection was reset or closed.
    case connection = 8
    /// Another transport or I/O error: a malformed reply, too many redirects, a file that cannot
    /// be read or written.
    case io = 9

    /// The exit code for a response status under `--check-status` (``ok`` for 1xx/2xx).
    public static func forStatus(_ statusCode: Int) -> ExitStatus {
        switch statusCode {
        case 300..<400: return .redirect
        case 400..<500: return .clientError
        case 500..<600: return .serverError
        default: return .ok
        }
    }

    /// The exit code for a failed request.
    public static func forError(_ error: CurlfireError) -> ExitStatus {
        switch error {
        case .invalidURL, .invalidHeader, .bodyDataInGETRequest:
            return .usage
        case .serverTrustEvaluationFailed:
            return .tls
        case .proxyAuthenticationRequired:
            return .connection
        case let .sessionTaskFailed(code, _):
            return forTransport(code)
        case .multipartEncodingFailed, .downloadedFileMoveFailed, .uploadableReadFailed, .invalidResumeData:
            return .io
        case let .responseValidationFailed(.unacceptableStatusCode(code)):
            return forStatus(code)
        case .requestRetryFailed(_, let original as CurlfireError):
            return forError(original)
        default:
            return .failure
        }
    }

    /// The exit code for a transport failure.
    public static func forTransport(_ code: TransportErrorCode) -> ExitStatus {
        switch code {
        case .timedOut: return .timeout
        case .tlsHandshakeFailed, .serverCertificateUntrusted, .clientCertificateRejected, .tlsProtocolRefused: return .tls
        case .cannotConnect, .cannotResolveHost, .cannotResolveProxy, .connectionLost: return .connection
        case .cancelled: return .failure
        case .badServerResponse, .tooManyRedirects, .sendFailed, .writeFailed, .readFailed, .decodingFailed,
             .unsupportedProtocol, .other:
            return .io
        }
    }

    /// The table printed by `--help` and in docs/CLI.md.
    public static let helpTable: String = """
        0  success (4xx/5xx too, unless --check-status)
        1  any other failure
        2  usage error: bad option, item or URL
        3  --check-status and an unfollowed 3xx
        4  --check-status and a 4xx
        5  --check-status and a 5xx
        6  timeout
        7  TLS failure: untrusted certificate, pin mismatch, handshake, client
           identity
        8  connection failure: refused, DNS, reset, proxy authentication
        9  other transport or I/O error: malformed reply, too many redirects,
           a file that cannot be read or written
        """
}
