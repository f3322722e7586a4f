import Foundation
import FoundationNetworking

/// A type that writes a dictionary of parameters into a `URLRequest`: into its URL's query, or into
/// its body with a matching `Content-Type`.
///
/// Curlfire ships ``URLEncoding``, ``JSONEncoding`` and ``PropertyListEncoding``; conform your own type
/// to send parameters in another format.
public protocol ParameterEncoding: Sendable {
    /// Returns a copy of the request with the parameters encoded into it.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to encode into.
    ///   - parameters: The parameters to encode; `nil` or empty leaves the request as it is.
    /// - Returns:      The encoded request.
    /// - Throws:       Any error `urlRequest.asURLRequest()` throws, or a
    ///                 ``CurlfireError/parameterEncodingFailed(reason:)``.
    func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest
}

extension URLRequest {
    /// Sets `Content-Type` to `value` unless the request already has a `Content-Type` (any case).
    mutating func setContentTypeIfMissing(_ value: String) {
        if self.value(forHTTPHeaderField: "Content-Type") == nil {
            setValue(value, forHTTPHeaderField: "Content-Type")
        }
    }

    /// Whether the method sends its parameters in the URL under a method-dependent destination:
    /// `GET`, `HEAD` and `DELETE`, and a request without a method (which libcurl sends as `GET`).
    var encodesParametersInURL: Bool {
        guard let method = httpMethod.map({ $0.uppercased() }) else { return true }
        return method == HTTPMethod.get.rawValue || method == HTTPMethod.head.rawValue
            || method == HTTPMethod.delete.rawValue
    }

    /// Appends an already percent-escaped query to the URL's query, keeping an existing query in front
    /// (`?a=1` + `b=2` → `?a=1&b=2`) and the fragment in place.
    ///
    /// - Throws: ``CurlfireError/parameterEncodingFailed(reason:)`` with `.missingURL` when the request
    ///           has no URL, or ``CurlfireError/invalidURL(url:)`` when the result is not a URL.
    mutating func appendPercentEncodedQuery(_ query: String) throws {
        guard let url else { throw CurlfireError.parameterEncodingFailed(reason: .missingURL) }
        guard !query.isEmpty else { return }
        // The common case as text (QueryAppending.swift): one parse instead of a URLComponents round
        // trip. A URL relative to a base keeps the round trip, which serializes the relative part only.
        if url.baseURL == nil, let appended = URL(string: QueryAppending.appending(query, to: url.absoluteString)) {
            self.url = appended
            return
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw CurlfireError.invalidURL(url: url.absoluteString)
        }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        guard let newURL = components.url else { throw CurlfireError.invalidURL(url: url.absoluteString) }
        self.url = newURL
    }
}

/// The `Content-Type` values Curlfire's encoders set when the request has none.
enum EncodingContentType {
    /// `application/x-www-form-urlencoded; charset=utf-8`
    static let formURLEncoded = "application/x-www-form-urlencoded; charset=utf-8"
    /// `application/json`
    static let json = "application/json"
    /// `application/x-plist`
    static let propertyList = "application/x-plist"
}
