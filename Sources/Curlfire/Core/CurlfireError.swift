import Foundation
import FoundationNetworking

/// Every error Curlfire produces: one enum whose cases carry nested reasons a caller can `switch` on.
///
/// Names follow Alamofire 4's `AFError`. Transport failures keep libcurl's own message.
public enum CurlfireError: Error, Sendable {
    /// The value given as a URL is not a valid absolute URL.
    case invalidURL(url: String)
    /// A header name or value holds CR, LF or NUL and would split the request; nothing was sent.
    case invalidHeader(name: String)
    /// A body was given for a `GET` request without opting in (Alamofire's `bodyDataInGETRequest`).
    case bodyDataInGETRequest
    /// Parameter encoding failed.
    case parameterEncodingFailed(reason: ParameterEncodingFailureReason)
    /// Building multipart form data failed.
    case multipartEncodingFailed(reason: MultipartEncodingFailureReason)
    /// A validator rejected the response.
    case responseValidationFailed(reason: ResponseValidationFailureReason)
    /// A response serializer could not produce its value.
    case responseSerializationFailed(reason: ResponseSerializationFailureReason)
    /// The server's certificate chain did not satisfy the host's ``ServerTrustPolicy``.
    case serverTrustEvaluationFailed(host: String, reason: ServerTrustFailureReason)
    /// The transfer failed below HTTP: the cause as a typed ``TransportErrorCode`` and libcurl's message.
    case sessionTaskFailed(code: TransportErrorCode, message: String)
    /// The request was cancelled with `cancel()` or by cancelling the awaiting Swift task.
    case explicitlyCancelled
    /// Moving a downloaded file to its destination failed; the downloaded bytes stay at `source`.
    /// `error` is the file system's: a `POSIXError` (`EEXIST` for an occupied destination without
    /// `.removePreviousFile`, `ENOENT` for a missing directory without
    /// `.createIntermediateDirectories`, …) or the error `FileManager` threw.
    case downloadedFileMoveFailed(error: Error, source: URL, destination: URL)
    /// Resume data could not be read or does not fit the request.
    case invalidResumeData(reason: String)
    /// A ``RequestAdapter`` threw while adapting the request.
    case requestAdaptationFailed(error: Error)
    /// A ``RequestRetrier`` threw while deciding whether to retry.
    case requestRetryFailed(retryError: Error, originalError: Error)
    /// A request body could not be read (for example the upload file vanished).
    case uploadableReadFailed(path: String, message: String)
    /// The session was released or shut down before the request could run.
    case sessionDeinitialized
    /// A modifier that changes what is sent (`authenticate`, `adapt(using:)`, `retry(using:)`,
    /// `redirect(using:)`, …) was applied to a request whose transfer had already started or had a
    /// response handler: nothing was sent for the modified request. Apply modifiers first.
    case requestAlreadyStarted(modifier: String)
    /// The request could only be answered from the session's ``ResponseCache``
    /// (`.returnCacheDataDontLoad`, or `Cache-Control: only-if-cached`) and no usable response was
    /// stored for `url`: nothing was sent.
    case cacheMiss(url: String)
    /// The `requestModifier:` closure given to `request`, `download` or `upload` threw this error
    /// (a thrown ``CurlfireError`` is kept as is); nothing was sent.
    case createURLRequestFailed(error: Error)
    /// A streamed request body (`upload(_:InputStream…)`, `upload(_:AsyncSequence…)`) failed: its
    /// producer threw or the stream could not be read, it produced a length other than the one
    /// declared, or it had to be sent again (a retry, a 307/308) and cannot be replayed.
    case bodyStreamFailed(reason: BodyStreamFailureReason)
    /// The ``CircuitBreaker`` for `host` is open after too many failed requests: the request failed
    /// at once and nothing was sent. A probe is let through after the breaker's cool-down.
    case circuitOpen(host: String)
    /// A timeout or deadline was not a positive, finite number of seconds: `name` says which
    /// (`timeoutInterval`, `deadline`, `connectTimeout`); nothing was sent.
    case invalidTimeout(name: String, value: TimeInterval)
    /// A bandwidth limit was not a positive number of bytes per second: `name` says which
    /// (`maximumDownloadBytesPerSecond`, `maximumUploadBytesPerSecond`); nothing was sent.
    case invalidBandwidthLimit(name: String, bytesPerSecond: Int)
    /// An entry of ``SessionConfiguration/hostResolutions`` for `host` is not usable (a host with
    /// `:` or `,`, a port outside 1...65535, no address, or one that is not IPv4 or IPv6); nothing was sent.
    case invalidHostResolution(host: String)
    /// The proxy at `proxy` (`host:port`) refused the credentials of ``SessionConfiguration/Proxy``,
    /// or asked for some where none were given: an HTTP or HTTPS proxy's `407 Proxy Authentication
    /// Required` (to a request or to the `CONNECT` of a tunnel), or a SOCKS5 proxy rejecting the
    /// user name and password or offering no method the client can use.
    case proxyAuthenticationRequired(proxy: String)

    /// Why a streamed request body failed.
    public enum BodyStreamFailureReason: Sendable {
        /// The `AsyncSequence` feeding the body threw `error` (yours comes back through ``CurlfireError/underlyingError``).
        case producerFailed(error: Error)
        /// The `InputStream` failed: its own `streamError`, or an ``InputStreamFailure``.
        case inputStreamReadFailed(error: Error)
        /// The stream produced `produced` bytes where `expected` were declared as its length.
        case lengthMismatch(expected: Int64, produced: Int64)
        /// The body had to be sent again (a retry, a 307/308 redirect, libcurl's rewind on a dead
        /// reused connection) after bytes of it were read: a stream cannot be replayed.
        case notReplayable
    }
    /// A WebSocket connection failed (``WebSocketRequest``), with the reason.
    case webSocketFailed(reason: WebSocketFailureReason)
    /// A server-sent event stream failed (``EventStreamRequest``), with the reason.
    case eventStreamFailed(reason: EventStreamFailureReason)
    // Issue 30 (release-b): kept together.
    /// A download's destination cannot take the file, found before anything was requested (nothing
    /// was sent): `error` is a `POSIXError` — `EEXIST` (occupied, without `.removePreviousFile`),
    /// `ENOENT` (no such directory, without `.createIntermediateDirectories`), `ENOTDIR`, `EISDIR`,
    /// `EACCES` or `EROFS` (the directory cannot be written).
    case downloadDestinationUnusable(error: Error, destination: URL)
    // Issue 27 (tls).
    /// ``SessionConfiguration/tlsKeyLogFile`` cannot be opened for appending (`error` is a
    /// `POSIXError`; `EINVAL` for a URL that is not a file URL): every HTTPS request of the session
    /// fails with it before anything is sent.
    case tlsKeyLogFileUnusable(path: String, error: Error)
    // Issue 27 (hsts): kept together.
    /// An ``HSTSStore``'s file could not be read or written (``HSTSStore/persistenceError``):
    /// `path` is the file, `message` the system's reason. Requests are not failed by it; the store
    /// keeps working in memory.
    case hstsStoreFailed(path: String, message: String)
    /// A Certificate Transparency log list (``CTLogList``) could not be read: `reason` says why.
    case certificateTransparencyLogListInvalid(reason: String)

    /// Why parameter encoding failed.
    public enum ParameterEncodingFailureReason: Sendable {
        /// The request has no URL to encode a query into.
        case missingURL
        /// `JSONSerialization` or `JSONEncoder` refused the value.
        case jsonEncodingFailed(error: Error)
        /// `PropertyListSerialization` refused the value.
        case propertyListEncodingFailed(error: Error)
        /// A value cannot be written in a URL-encoded form (for example a non-finite number).
        case unencodableValue(key: String, description: String)
        /// An `Encodable` value could not be form-encoded.
        case customEncodingFailed(error: Error)
    }

    /// Why building multipart form data failed.
    public enum MultipartEncodingFailureReason: Sendable {
        /// The body part's URL is not a file URL.
        case bodyPartURLInvalid(url: URL)
        /// No file name could be derived from the URL.
        case bodyPartFilenameInvalid(in: URL)
        /// The file does not exist.
        case bodyPartFileNotReachable(at: URL)
        /// Checking whether the file exists failed.
        case bodyPartFileNotReachableWithError(atURL: URL, error: Error)
        /// The URL names a directory.
        case bodyPartFileIsDirectory(at: URL)
        /// The file's size could not be read.
        case bodyPartFileSizeNotAvailable(at: URL)
        /// Reading the file's size failed.
        case bodyPartFileSizeQueryFailedWithError(forURL: URL, error: Error)
        /// The file exists but cannot be read.
        case bodyPartInputStreamCreationFailed(for: URL)
        /// The extension gives no MIME type and none was given.
        case bodyPartMimeTypeMissing(for: URL)
        /// The temporary file for on-disk encoding already exists.
        case outputStreamFileAlreadyExists(at: URL)
        /// The temporary file for on-disk encoding could not be created.
        case outputStreamCreationFailed(for: URL)
        /// Writing the encoded body failed.
        case outputStreamWriteFailed(error: Error)
        /// Reading a body part failed.
        case inputStreamReadFailed(error: Error)
        /// The URL given to `MultipartFormData.writeEncodedData(to:)` is not a file URL (Alamofire 4's name).
        case outputStreamURLInvalid(url: URL)
    }

    /// Why a validator rejected a response.
    public enum ResponseValidationFailureReason: Sendable {
        /// The downloaded file is missing.
        case dataFileNil
        /// The downloaded file could not be read.
        case dataFileReadFailed(at: URL)
        /// The response has no `Content-Type` although a body was received and types were required.
        case missingContentType(acceptableContentTypes: [String])
        /// The response's content type is not among the acceptable ones.
        case unacceptableContentType(acceptableContentTypes: [String], responseContentType: String)
        /// The status code is not among the acceptable ones.
        case unacceptableStatusCode(code: Int)
        /// A custom validation closure returned a failure with this error.
        case customValidationFailed(error: Error)
    }

    /// Why a serializer could not produce its value.
    public enum ResponseSerializationFailureReason: Sendable {
        /// There is no body at all (nothing was received) and the serializer needs one; an empty
        /// body is not this (`responseData` and `responseString` accept it).
        case inputDataNil
        /// The response has no body, or an empty one, and the serializer needs one.
        case inputDataNilOrZeroLength
        /// The downloaded file is missing.
        case inputFileNil
        /// The downloaded file could not be read.
        case inputFileReadFailed(at: URL)
        /// The bytes are not valid in the given string encoding.
        case stringSerializationFailed(encoding: String.Encoding)
        /// `JSONSerialization` failed.
        case jsonSerializationFailed(error: Error)
        /// `PropertyListSerialization` failed.
        case propertyListSerializationFailed(error: Error)
        /// `XMLDocument` could not parse the body.
        case xmlSerializationFailed(error: Error)
        /// The `Decodable` value could not be decoded.
        case decodingFailed(error: Error)
        /// A custom serializer failed.
        case customSerializationFailed(error: Error)
    }

    /// Why the server's certificate chain was rejected.
    public enum ServerTrustFailureReason: Sendable, Equatable {
        /// The server presented no certificate.
        case noCertificatesFound
        /// The chain does not verify against the anchors: OpenSSL's verify error code and text.
        case chainInvalid(verifyError: Int, message: String)
        /// A certificate of the chain is outside its validity period.
        case certificateExpired
        /// A certificate of the chain is not yet valid.
        case certificateNotYetValid
        /// The leaf does not name the host.
        case hostMismatch
        /// No presented (or verified) certificate equals a pinned one.
        case certificatePinMismatch
        /// No public key in the chain equals a pinned one.
        case publicKeyPinMismatch
        /// A certificate of the chain is revoked, or its revocation status could not be established.
        case revoked(message: String)
        /// The policy's custom evaluation returned `false`.
        case customEvaluationRejected
        /// Evaluation failed for a reason OpenSSL reported but Curlfire does not classify.
        case other(message: String)
        /// The host has no policy and the ``ServerTrustPolicyManager`` requires one for every host
        /// (``ServerTrustPolicyManager/allHostsMustBeEvaluated``). Policies are keyed by the URL's host
        /// exactly: a pin under `127.0.0.1` does not cover `localhost`.
        case noPolicyForHost
        // Issue 27 (hsts): Certificate Transparency.
        /// A ``CertificateTransparencyPolicy`` was not met: valid SCTs came from `found` distinct log
        /// operators where `required` are needed; `problems` names each SCT that did not count and why
        /// (unknown log, invalid signature, timestamp in the future) or what was missing.
        case insufficientSignedCertificateTimestamps(required: Int, found: Int, problems: [String])
    }
}

/// The cause of a transport failure (``CurlfireError/sessionTaskFailed(code:message:)``), from libcurl's result code.
public enum TransportErrorCode: Sendable, Hashable {
    /// A timeout elapsed (`timeoutIntervalForRequest`, the request's own, or the resource timeout).
    case timedOut
    /// The TCP connection was refused or could not be made.
    case cannotConnect
    /// The host name could not be resolved.
    case cannotResolveHost
    /// The proxy's name could not be resolved.
    case cannotResolveProxy
    /// The connection closed or reset before the response was complete.
    case connectionLost
    /// The server's reply is not valid HTTP (bad status line, bad headers, bad chunking).
    case badServerResponse
    /// The TLS handshake failed (protocol, cipher, or a client certificate the server refused).
    case tlsHandshakeFailed
    /// The server's certificate was rejected by default verification.
    case serverCertificateUntrusted
    /// A client certificate or key could not be loaded, or the server refused the certificate sent
    /// (or its absence) with a TLS alert.
    case clientCertificateRejected
    /// More redirects than allowed.
    case tooManyRedirects
    /// Sending the request body failed.
    case sendFailed
    /// Writing the received body failed (disk full, a sink error).
    case writeFailed
    /// Reading the request body failed.
    case readFailed
    /// The body could not be decoded (gzip, deflate, brotli, zstd).
    case decodingFailed
    /// The URL's scheme is not supported.
    case unsupportedProtocol
    /// The transfer was aborted (cancellation).
    case cancelled
    /// Any other libcurl failure, with its `CURLcode`.
    case other(curlCode: Int)
    /// The TLS handshake failed because the server offered nothing the hop's ``TLSProtocolPolicy``
    /// allows — no version in its range, none of its cipher suites or groups — or the policy allows
    /// nothing at all (then nothing was sent). Nothing of the request was sent.
    case tlsProtocolRefused(TLSProtocolRefusal)
}

extension CurlfireError {
    /// Whether this is ``invalidURL(url:)``.
    public var isInvalidURLError: Bool { if case .invalidURL = self { return true } else { return false } }
    /// Whether this is ``parameterEncodingFailed(reason:)``.
    public var isParameterEncodingError: Bool {
        if case .parameterEncodingFailed = self { return true } else { return false }
    }
    /// Whether this is ``multipartEncodingFailed(reason:)``.
    public var isMultipartEncodingError: Bool {
        if case .multipartEncodingFailed = self { return true } else { return false }
    }
    /// Whether this is ``responseValidationFailed(reason:)``.
    public var isResponseValidationError: Bool {
        if case .responseValidationFailed = self { return true } else { return false }
    }
    /// Whether this is ``responseSerializationFailed(reason:)``.
    public var isResponseSerializationError: Bool {
        if case .responseSerializationFailed = self { return true } else { return false }
    }
    /// Whether this is ``serverTrustEvaluationFailed(host:reason:)``.
    public var isServerTrustEvaluationError: Bool {
        if case .serverTrustEvaluationFailed = self { return true } else { return false }
    }
    /// Whether this is ``sessionTaskFailed(code:message:)``.
    public var isSessionTaskError: Bool { if case .sessionTaskFailed = self { return true } else { return false } }
    /// Whether this is ``explicitlyCancelled``.
    public var isExplicitlyCancelledError: Bool {
        if case .explicitlyCancelled = self { return true } else { return false }
    }
    /// The transport cause, for ``sessionTaskFailed(code:message:)``.
    public var transportErrorCode: TransportErrorCode? {
        if case let .sessionTaskFailed(code, _) = self { return code } else { return nil }
    }
    /// The status code, for ``ResponseValidationFailureReason/unacceptableStatusCode(code:)``.
    public var responseCode: Int? {
        if case let .responseValidationFailed(.unacceptableStatusCode(code)) = self { return code }
        return nil
    }
    /// The error underneath, where the case wraps one: a validation closure's, a serializer's or a
    /// `flatMap` transform's error, an adapter's or a retrier's, a multipart body part's or the
    /// encoder's file error, a file system error of a download's move or of its destination check, a JSON or property-list
    /// encoder's or parser's. Your own error comes back as itself: `response.error?.underlyingError
    /// as? MyError`. `nil` for the cases that wrap none.
    public var underlyingError: Error? {
        switch self {
        case let .multipartEncodingFailed(.bodyPartFileNotReachableWithError(_, error)),
             let .multipartEncodingFailed(.bodyPartFileSizeQueryFailedWithError(_, error)),
             let .multipartEncodingFailed(.outputStreamWriteFailed(error)),
             let .multipartEncodingFailed(.inputStreamReadFailed(error)),
             let .downloadedFileMoveFailed(error, _, _),
             let .downloadDestinationUnusable(error, _),
             let .bodyStreamFailed(.producerFailed(error)),
             let .bodyStreamFailed(.inputStreamReadFailed(error)):
            return error
        case let .parameterEncodingFailed(.jsonEncodingFailed(error)),
             let .parameterEncodingFailed(.propertyListEncodingFailed(error)),
             let .parameterEncodingFailed(.customEncodingFailed(error)),
             let .responseSerializationFailed(.jsonSerializationFailed(error)),
             let .responseSerializationFailed(.propertyListSerializationFailed(error)),
             let .responseSerializationFailed(.xmlSerializationFailed(error)),
             let .responseSerializationFailed(.decodingFailed(error)),
             let .responseSerializationFailed(.customSerializationFailed(error)),
             let .responseValidationFailed(.customValidationFailed(error)),
             let .requestAdaptationFailed(error),
             let .createURLRequestFailed(error):
            return error
        case let .requestRetryFailed(retryError, _):
            return retryError
        default:
            return nil
        }
    }
}
