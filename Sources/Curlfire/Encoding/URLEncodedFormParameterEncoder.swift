import Foundation
import FoundationNetworking

/// Encodes an `Encodable` value as a URL-encoded form with a ``URLEncodedFormEncoder``, into the URL's
/// query or into the body.
///
/// In the body, `Content-Type` is set to `application/x-www-form-urlencoded; charset=utf-8` unless the
/// request already has one. In the query, an existing query is kept in front of the new pairs.
public struct URLEncodedFormParameterEncoder: ParameterEncoder {
    /// Where the encoded form goes.
    public enum Destination: Sendable {
        /// The URL's query for `GET`, `HEAD` and `DELETE` requests (and requests without a method), the
        /// body for every other method.
        case methodDependent
        /// Always the URL's query.
        case queryString
        /// Always the body.
        case httpBody
    }

    /// A default ``URLEncodedFormEncoder`` and a method-dependent destination.
    public static let `default` = URLEncodedFormParameterEncoder()

    /// The form encoder.
    public let encoder: URLEncodedFormEncoder
    /// Where the encoded form goes.
    public let destination: Destination

    /// Creates a form parameter encoder.
    ///
    /// - Parameters:
    ///   - encoder:     The form encoder. `URLEncodedFormEncoder()` by default.
    ///   - destination: Where the encoded form goes. `.methodDependent` by default.
    public init(encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(), destination: Destination = .methodDependent) {
        self.encoder = encoder
        self.destination = destination
    }

    /// Returns a copy of the request with `parameters` in its query or body.
    ///
    /// `nil` parameters, or parameters that encode to nothing, leave the request unchanged.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode; it must encode a keyed container at the top.
    ///   - request:    The request to encode into.
    /// - Returns:      The encoded request.
    /// - Throws:       ``CurlfireError/parameterEncodingFailed(reason:)``: `.customEncodingFailed` wrapping
    ///                 the encoder's error, or `.missingURL` when a query is needed and the request has
    ///                 no URL.
    public func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        let form: String
        do {
            form = try encoder.encode(parameters)
        } catch {
            throw CurlfireError.parameterEncodingFailed(reason: .customEncodingFailed(error: error))
        }
        guard !form.isEmpty else { return request }

        var request = request
        if usesQuery(for: request) {
            try request.appendPercentEncodedQuery(form)
        } else {
            request.setContentTypeIfMissing(EncodingContentType.formURLEncoded)
            request.httpBody = Data(form.utf8)
        }
        return request
    }

    private func usesQuery(for request: URLRequest) -> Bool {
        switch destination {
        case .methodDependent: return request.encodesParametersInURL
        case .queryString: return true
        case .httpBody: return false
        }
    }
}
