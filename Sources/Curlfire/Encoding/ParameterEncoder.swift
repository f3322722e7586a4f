import Foundation
import FoundationNetworking

/// A type that writes an `Encodable` value into a `URLRequest`: the `Encodable` counterpart of
/// ``ParameterEncoding``.
///
/// Curlfire ships ``JSONParameterEncoder`` and ``URLEncodedFormParameterEncoder``.
public protocol ParameterEncoder: Sendable {
    /// Returns a copy of the request with the parameters encoded into it.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode; `nil` leaves the request as it is.
    ///   - request:    The request to encode into.
    /// - Returns:      The encoded request.
    /// - Throws:       A ``CurlfireError/parameterEncodingFailed(reason:)``.
    func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest
}

/// Encodes an `Encodable` value as a JSON body with a `JSONEncoder`.
///
/// `Content-Type` is set to `application/json` unless the request already has one.
///
/// `JSONEncoder` is `Sendable` on Linux (swift-corelibs-foundation 6): its configuration is guarded by
/// a lock inside Foundation, and `encode(_:)` keeps no state between calls, so one encoder may serve
/// concurrent requests. Configure it before handing it over.
public struct JSONParameterEncoder: ParameterEncoder {
    /// A `JSONEncoder` with its default settings.
    public static var `default`: JSONParameterEncoder { JSONParameterEncoder() }

    /// A `JSONEncoder` writing indented output.
    public static var prettyPrinted: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .prettyPrinted
        return JSONParameterEncoder(encoder: encoder)
    }

    /// A `JSONEncoder` writing keys sorted, so equal values give equal bytes.
    public static var sortedKeys: JSONParameterEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return JSONParameterEncoder(encoder: encoder)
    }

    /// The encoder that writes the body.
    public let encoder: JSONEncoder

    /// Creates a JSON parameter encoder.
    ///
    /// - Parameter encoder: The `JSONEncoder` to use. `JSONEncoder()` by default.
    public init(encoder: JSONEncoder = JSONEncoder()) {
        self.encoder = encoder
    }

    /// Returns a copy of the request with `parameters` as its JSON body.
    ///
    /// - Parameters:
    ///   - parameters: The value to encode; `nil` leaves the request unchanged.
    ///   - request:    The request to encode into.
    /// - Returns:      The encoded request.
    /// - Throws:       ``CurlfireError/parameterEncodingFailed(reason:)`` with `.jsonEncodingFailed`
    ///                 wrapping the `JSONEncoder`'s error.
    public func encode<Parameters: Encodable>(_ parameters: Parameters?, into request: URLRequest) throws -> URLRequest {
        guard let parameters else { return request }
        var request = request
        do {
            request.httpBody = try encoder.encode(parameters)
        } catch {
            throw CurlfireError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        request.setContentTypeIfMissing(EncodingContentType.json)
        return request
    }
}
