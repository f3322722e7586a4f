import Foundation
import FoundationNetworking

// One sentence per case, ending with a period: what failed, with the values that matter, and where
// the caller can fix it, what to change. CurlfireErrorDescriptionTests checks every case.

extension CurlfireError: LocalizedError, CustomStringConvertible {
    /// A sentence saying what failed and why (the same as ``description``).
    public var errorDescription: String? { description }

    /// A sentence saying what failed and why, ending with a period.
    public var description: String {
        switch self {
        case let .invalidURL(url): return "The URL \(Self.quoted(url)) is not a valid absolute URL."
        case let .invalidHeader(name):
            return "The header \(Self.quoted(name)) holds CR, LF or NUL, which would split the request; nothing was sent."
        case .bodyDataInGETRequest:
            return "A GET request was given a body; nothing was sent (allow it explicitly, or send the parameters in the query)."
        case let .parameterEncodingFailed(reason): return reason.description
        case let .multipartEncodingFailed(reason): return reason.description
        case let .responseValidationFailed(reason): return reason.description
        case let .responseSerializationFailed(reason): return reason.description
        case let .serverTrustEvaluationFailed(host, reason):
            return "The server \(host) was not trusted: \(Self.clause(reason.description))"
        case let .sessionTaskFailed(code, message): return Self.transportSentence(code, message: message)
        case .explicitlyCancelled: return "The request was cancelled."
        case let .downloadedFileMoveFailed(error, source, destination):
            return DownloadFileMover.sentence(for: error, source: source, destination: destination)
        case let .invalidResumeData(reason): return "The resume data cannot be used: \(Self.clause(reason))"
        case let .requestAdaptationFailed(error):
            return "Request adaptation failed (an adapter threw), so the request was not sent: \(Self.clause(Self.describe(error)))"
        case let .requestRetryFailed(retryError, originalError):
            return "A request retrier threw (\(Self.fragment(Self.describe(retryError)))) while deciding about this failure: "
                + Self.clause(Self.describe(originalError))
        case let .uploadableReadFailed(path, message):
            return "The upload body \(path) could not be read: \(Self.clause(message))"
        case .sessionDeinitialized: return "The session was released or shut down before the request could finish."
        case let .createURLRequestFailed(error):
            return "The request modifier threw, so nothing was sent: \(Self.clause(Self.describe(error)))"
        case let .requestAlreadyStarted(modifier):
            return "The modifier \(modifier) was applied to a request that had already started or had a response handler; "
                + "nothing was sent for the modified request. Apply modifiers before attaching a handler."
        case let .cacheMiss(url):
            return "No usable cached response for \(url), and the request may only be answered from the cache."
        case let .bodyStreamFailed(reason): return reason.description
        case let .webSocketFailed(reason): return "The WebSocket failed: \(Self.clause(reason.description))"
        case let .circuitOpen(host):
            return "The circuit breaker for \(host) is open after too many failed requests, so this request "
                + "was not sent; it lets a probe through once its cool-down has passed."
        case let .eventStreamFailed(reason): return "The event stream failed: \(Self.clause(reason.description))"
        case let .invalidTimeout(name, value):
            return "The timeout \(name) must be a positive, finite number of seconds, not \(value); nothing was sent."
        case let .proxyAuthenticationRequired(proxy):
            return "The proxy \(proxy) requires authentication: it refused the proxy credentials, or none were given."
        case let .invalidHostResolution(host):
            return "The fixed address entry for \(host) is not usable (host, port 1...65535, IPv4 or IPv6 addresses); nothing was sent."
        case let .invalidBandwidthLimit(name, bytesPerSecond):
            return "The bandwidth limit \(name) must be a positive number of bytes per second, not \(bytesPerSecond); nothing was sent."
        case let .downloadDestinationUnusable(error, destination):
            return Self.unusableDestinationSentence(error, destination: destination)
        case let .tlsKeyLogFileUnusable(path, error):
            return "The TLS key log file \(path) cannot be opened for appending, so nothing was sent: \(Self.clause(Self.describe(error)))"
        case let .hstsStoreFailed(path, message):
            return "The HSTS store's file \(path) could not be read or written (\(message)); the store keeps its hosts in memory."
        case let .certificateTransparencyLogListInvalid(reason):
            return "The Certificate Transparency log list could not be read: \(CurlfireError.clause(reason))"
        }
    }

    /// Why a download was not started: its destination, checked before anything was requested, cannot take the file.
    private static func unusableDestinationSentence(_ error: Error, destination: URL) -> String {
        let prefix = "The download was not started because its destination \(destination.path)"
        let folder = destination.deletingLastPathComponent().path
        switch (error as? POSIXError)?.code {
        case .EEXIST?: return "\(prefix) already exists; pass .removePreviousFile to replace it."
        case .ENOENT?: return "\(prefix) is in a folder that does not exist (\(folder)); pass .createIntermediateDirectories."
        case .ENOTDIR?: return "\(prefix) is under a path that is a file, not a folder (\(folder))."
        case .EISDIR?: return "\(prefix) is a directory; .removePreviousFile replaces files only."
        case .EACCES?, .EROFS?: return "\(prefix) is in a folder that cannot be written (\(folder))."
        default: return "\(prefix) cannot take the file: \(clause(describe(error)))"
        }
    }

    /// The transport failure's sentence: what kind of failure, then libcurl's (or Curlfire's) detail.
    private static func transportSentence(_ code: TransportErrorCode, message: String) -> String {
        let detail = message.isEmpty ? "" : ": " + fragment(message)
        switch code {
        case .timedOut: return "The request timed out\(detail)."
        case .cannotConnect: return "Could not connect to the server\(detail)."
        case .cannotResolveHost: return "The host name could not be resolved\(detail)."
        case .cannotResolveProxy: return "The proxy's host name could not be resolved\(detail)."
        case .connectionLost: return "The connection was lost before the response was complete\(detail)."
        case .badServerResponse: return "The server's reply is not valid HTTP\(detail)."
        case .tlsHandshakeFailed: return "The TLS handshake failed\(detail)."
        case .serverCertificateUntrusted: return "The server's certificate was not trusted\(detail)."
        case .clientCertificateRejected: return "The client certificate could not be used or was refused by the server\(detail)."
        case .tooManyRedirects: return "The request was redirected too many times\(detail)."
        case .sendFailed: return "Sending the request failed\(detail)."
        case .writeFailed: return "Writing the received body failed\(detail)."
        case .readFailed: return "Reading the request body failed\(detail)."
        case .decodingFailed: return "The response body could not be decompressed\(detail)."
        case .unsupportedProtocol: return "The URL's scheme is not supported\(detail)."
        case .cancelled: return "The transfer was aborted\(detail)."
        case let .other(curlCode): return "The transfer failed (libcurl error \(curlCode))\(detail)."
        case let .tlsProtocolRefused(refusal):
            return "The TLS handshake failed under the TLS protocol policy: the server accepts \(refusal)\(detail)."
        }
    }

    // MARK: - Helpers shared by the reasons' descriptions

    /// A readable sentence for any error: a ``CurlfireError``'s own, a `LocalizedError`'s description,
    /// what failed to encode or decode for `EncodingError` / `DecodingError`, the POSIX text for a
    /// `POSIXError`, a Foundation error's localized description, else the value as it prints.
    static func describe(_ error: Error) -> String {
        if let error = error as? CurlfireError { return error.description }
        if let error = error as? EncodingError { return describeEncoding(error) }
        if let error = error as? DecodingError { return describeDecoding(error) }
        if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text }
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain || nsError.domain == NSPOSIXErrorDomain {
            if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
               let code = Int32(exactly: underlying.code) {
                return String(cString: strerror(code))
            }
            return nsError.localizedDescription.replacingOccurrences(of: "The operation could not be completed. ", with: "")
        }
        return String(describing: error)
    }

    private static func describeEncoding(_ error: EncodingError) -> String {
        switch error {
        case let .invalidValue(value, context):
            return "the value \(type(of: value))\(at(context.codingPath)) cannot be encoded (\(fragment(context.debugDescription)))"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func describeDecoding(_ error: DecodingError) -> String {
        switch error {
        case let .typeMismatch(type, context):
            return "expected \(type)\(at(context.codingPath)) (\(fragment(context.debugDescription)))"
        case let .valueNotFound(type, context):
            return "no value of type \(type)\(at(context.codingPath)) (\(fragment(context.debugDescription)))"
        case let .keyNotFound(key, context):
            return "the key \(quoted(key.stringValue)) is missing\(at(context.codingPath))"
        case let .dataCorrupted(context):
            return "the data is not valid\(at(context.codingPath)) (\(fragment(context.debugDescription)))"
        @unknown default:
            return String(describing: error)
        }
    }

    /// " at `a.b[2]`", or "" for the top level.
    private static func at(_ path: [CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        let text = path.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
            .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        return " at `\(text)`"
    }

    /// `text` without its final period or white space, to be embedded in a longer sentence: a
    /// capitalised first word becomes lower case ("Failed to connect" → "failed to connect"), an
    /// acronym or a name does not ("OpenSSL", "HTTP/0.9").
    static func fragment(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix(".") { text.removeLast() }
        let word = text.prefix { !$0.isWhitespace }
        if let first = word.first, first.isUppercase, word.count > 1, word.dropFirst().allSatisfy(\.isLowercase) {
            text = first.lowercased() + text.dropFirst()
        }
        return text
    }

    /// `text` as the end of a sentence: ends with exactly one period.
    static func clause(_ text: String) -> String {
        fragment(text) + "."
    }

    /// `text` between quotation marks, with control characters escaped.
    static func quoted(_ text: String) -> String {
        text.debugDescription
    }
}

extension CurlfireError.ParameterEncodingFailureReason: CustomStringConvertible {
    /// A sentence saying why the parameters could not be encoded.
    public var description: String {
        switch self {
        case .missingURL: return "The parameters could not be encoded: the request has no URL to put a query in."
        case let .jsonEncodingFailed(error):
            return "The parameters could not be encoded as JSON: \(CurlfireError.clause(CurlfireError.describe(error)))"
        case let .propertyListEncodingFailed(error):
            return "The parameters could not be encoded as a property list: \(CurlfireError.clause(CurlfireError.describe(error)))"
        case let .unencodableValue(key, description):
            let name = key.isEmpty ? "A parameter" : "The parameter \(CurlfireError.quoted(key))"
            return "\(name) has the value \(description), which cannot be written in a URL-encoded form."
        case let .customEncodingFailed(error):
            return "The parameters could not be form-encoded: \(CurlfireError.clause(CurlfireError.describe(error)))"
        }
    }
}

extension CurlfireError.MultipartEncodingFailureReason: CustomStringConvertible {
    /// A sentence saying which multipart body part or output failed, and why.
    public var description: String {
        let describe = CurlfireError.describe
        let clause = CurlfireError.clause
        switch self {
        case let .bodyPartURLInvalid(url): return "The multipart body part \(url.absoluteString) is not a file URL."
        case let .bodyPartFilenameInvalid(url):
            return "No file name could be derived from the multipart body part's URL \(url.absoluteString); pass fileName:."
        case let .bodyPartFileNotReachable(url): return "The multipart body part's file \(url.path) does not exist."
        case let .bodyPartFileNotReachableWithError(url, error):
            return "The multipart body part's file \(url.path) could not be checked: \(clause(describe(error)))"
        case let .bodyPartFileIsDirectory(url): return "The multipart body part \(url.path) is a directory, not a file."
        case let .bodyPartFileSizeNotAvailable(url): return "The size of the multipart body part's file \(url.path) is not available."
        case let .bodyPartFileSizeQueryFailedWithError(url, error):
            return "The size of the multipart body part's file \(url.path) could not be read: \(clause(describe(error)))"
        case let .bodyPartInputStreamCreationFailed(url): return "The multipart body part's file \(url.path) cannot be read."
        case let .bodyPartMimeTypeMissing(url):
            return "No MIME type is known for the extension of \(url.lastPathComponent); pass mimeType:."
        case let .outputStreamFileAlreadyExists(url):
            return "The file for the encoded multipart body, \(url.path), already exists."
        case let .outputStreamCreationFailed(url): return "The file for the encoded multipart body, \(url.path), could not be created."
        case let .outputStreamWriteFailed(error): return "Writing the encoded multipart body failed: \(clause(describe(error)))"
        case let .inputStreamReadFailed(error): return "Reading a multipart body part failed: \(clause(describe(error)))"
        case let .outputStreamURLInvalid(url):
            return "The multipart body can only be written to a file URL, and \(url.absoluteString) is not one."
        }
    }
}

extension CurlfireError.ResponseValidationFailureReason: CustomStringConvertible {
    /// A sentence saying why the response was rejected.
    public var description: String {
        switch self {
        case .dataFileNil: return "The response was rejected: the downloaded file is missing."
        case let .dataFileReadFailed(url): return "The response was rejected: the downloaded file \(url.path) could not be read."
        case let .missingContentType(types):
            return "The response has a body but no Content-Type, and one of \(types.joined(separator: ", ")) was required."
        case let .unacceptableContentType(types, contentType):
            return "The response's Content-Type \(contentType) is not one of \(types.joined(separator: ", "))."
        case let .unacceptableStatusCode(code):
            return "The response's status code \(code) (\(HTTPURLResponse.localizedString(forStatusCode: code))) is not acceptable."
        case let .customValidationFailed(error):
            return "A validation closure rejected the response: \(CurlfireError.clause(CurlfireError.describe(error)))"
        }
    }
}

extension CurlfireError.ResponseSerializationFailureReason: CustomStringConvertible {
    /// A sentence saying why the response could not be serialized.
    public var description: String {
        let describe = CurlfireError.describe
        let clause = CurlfireError.clause
        switch self {
        case .inputDataNil: return "The response has no body, and the serializer needs one."
        case .inputDataNilOrZeroLength: return "The response body is empty, and the serializer needs one."
        case .inputFileNil: return "The downloaded file is missing, so there is nothing to serialize."
        case let .inputFileReadFailed(url): return "The downloaded file \(url.path) could not be read."
        case let .stringSerializationFailed(encoding):
            return "The response body is not valid text in the encoding \(String.localizedName(of: encoding))."
        case let .jsonSerializationFailed(error): return "The response body is not valid JSON: \(clause(describe(error)))"
        case let .propertyListSerializationFailed(error):
            return "The response body is not a valid property list: \(clause(describe(error)))"
        case let .xmlSerializationFailed(error): return "The response body is not valid XML: \(clause(describe(error)))"
        case let .decodingFailed(error): return "The response body could not be decoded: \(clause(describe(error)))"
        case let .customSerializationFailed(error): return "The response serializer failed: \(clause(describe(error)))"
        }
    }
}

extension CurlfireError.ServerTrustFailureReason: CustomStringConvertible {
    /// A sentence saying why the server's certificate chain was rejected.
    public var description: String {
        switch self {
        case .noCertificatesFound: return "The server presented no certificate."
        case let .chainInvalid(code, message):
            return "Its certificate chain does not verify against the trusted roots (OpenSSL error \(code): "
                + "\(CurlfireError.fragment(message)))."
        case .certificateExpired: return "A certificate of its chain has expired."
        case .certificateNotYetValid: return "A certificate of its chain is not valid yet."
        case .hostMismatch: return "Its certificate does not name the host the URL names."
        case .certificatePinMismatch: return "No certificate it presented matches a pinned certificate."
        case .publicKeyPinMismatch: return "No public key of its chain matches a pinned key."
        case let .revoked(message):
            return "A certificate of its chain is revoked, or its revocation status is unknown: \(CurlfireError.clause(message))"
        case .customEvaluationRejected: return "The policy's custom evaluation rejected it."
        case let .other(message): return "OpenSSL rejected it: \(CurlfireError.clause(message))"
        case .noPolicyForHost:
            return "The ServerTrustPolicyManager has no policy for this host and requires one (allHostsMustBeEvaluated); "
                + "policies are keyed by the URL's host exactly."
        case let .insufficientSignedCertificateTimestamps(required, found, problems):
            return "Its certificate has valid SCTs from \(found) distinct log operator(s) where \(required) are required"
                + (problems.isEmpty ? "." : ": " + CurlfireError.clause(problems.joined(separator: "; ")))
        }
    }
}

extension CurlfireError.BodyStreamFailureReason: CustomStringConvertible {
    /// A sentence saying why the streamed request body failed.
    public var description: String {
        switch self {
        case let .producerFailed(error):
            return "The AsyncSequence producing the request body threw: \(CurlfireError.clause(CurlfireError.describe(error)))"
        case let .inputStreamReadFailed(error):
            return "Reading the request body's InputStream failed: \(CurlfireError.clause(CurlfireError.describe(error)))"
        case let .lengthMismatch(expected, produced):
            return "The streamed request body produced \(produced) bytes where \(expected) were declared."
        case .notReplayable:
            return "The request body is a stream that was already read, so it cannot be sent again (a retry or a 307/308 redirect)."
        }
    }
}
