import Foundation
import FoundationNetworking

/// Pure judgements of the event stream's connection loop: whether a response head starts an
/// event stream, and whether the error a connection ended with is worth another connection.
enum EventStreamVerdict: Equatable {
    /// A 2xx (not 204) `text/event-stream` response: read its events.
    case stream
    /// HTTP 204: the server asks the client not to reconnect.
    case noContent
    /// Anything else: the stream fails with ``error(for:)``.
    case rejected

    /// The MIME type every event stream must have.
    static let mimeType = "text/event-stream"

    /// The verdict on a response head.
    static func judge(_ response: HTTPURLResponse) -> EventStreamVerdict {
        if response.statusCode == 204 { return .noContent }
        guard (200..<300).contains(response.statusCode) else { return .rejected }
        return mediaType(of: response) == mimeType ? .stream : .rejected
    }

    /// The error for a rejected head: its status, or its content type.
    static func error(for response: HTTPURLResponse) -> CurlfireError {
        guard (200..<300).contains(response.statusCode) else {
            return .responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode))
        }
        guard let type = mediaType(of: response) else {
            return .responseValidationFailed(reason: .missingContentType(acceptableContentTypes: [mimeType]))
        }
        return .responseValidationFailed(reason: .unacceptableContentType(acceptableContentTypes: [mimeType],
                                                                         responseContentType: type))
    }

    /// The response's media type, lowercased, without parameters.
    static func mediaType(of response: HTTPURLResponse) -> String? {
        guard let value = response.value(forHTTPHeaderField: "Content-Type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// How a connection that failed with `error` ended: a transport failure that another
    /// connection may not meet (reset, timeout, refused, DNS) is transient; cancellation is
    /// cancellation; anything else (trust, TLS, adapters, validators, sizes) would happen again.
    static func end(for error: CurlfireError) -> EventStreamReconnection.End {
        switch error {
        case .explicitlyCancelled:
            return .cancelled
        case let .sessionTaskFailed(code, _):
            switch code {
            case .timedOut, .cannotConnect, .cannotResolveHost, .cannotResolveProxy, .connectionLost,
                 .badServerResponse, .sendFailed, .other:
                return .transientFailure
            case .cancelled:
                return .cancelled
            case .tlsHandshakeFailed, .serverCertificateUntrusted, .clientCertificateRejected, .tooManyRedirects,
                 .writeFailed, .readFailed, .decodingFailed, .unsupportedProtocol, .tlsProtocolRefused:
                return .fatalFailure
            }
        default:
            return .fatalFailure
        }
    }
}
