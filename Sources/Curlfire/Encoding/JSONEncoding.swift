import Foundation
import FoundationNetworking

/// Encodes parameters as a JSON body with `JSONSerialization`.
///
/// Keys are always written sorted (`.sortedKeys` is added to the options), so the same parameters give
/// the same bytes on every run. `Content-Type` is set to `application/json` unless the request already
/// has one. The object is checked with `JSONSerialization.isValidJSONObject(_:)` before it is written,
/// so a value JSON cannot hold (a `Date`, NaN, an infinity, a custom type) throws
/// ``CurlfireError/parameterEncodingFailed(reason:)`` with `.jsonEncodingFailed` instead of crashing.
///
/// On Linux `JSONSerialization` writes a `Double` `1.0` as `1.0` (Apple platforms write `1`).
public struct JSONEncoding: ParameterEncoding {
    /// The error wrapped in ``CurlfireError/ParameterEncodingFailureReason/jsonEncodingFailed(error:)``
    /// when the object is not valid JSON.
    public struct InvalidJSONObjectError: Error, Sendable, CustomStringConvertible {
        /// The type of the rejected object.
        public let typeDescription: String
        /// Where in the object the first value JSON cannot hold is (`"user.tags[2]"`), and that value's
        /// type (`"Date"`); `nil` when the object itself is the problem (not an array or a dictionary).
        public let invalidValue: (path: String, typeDescription: String)?

        /// Says which value cannot be written as JSON.
        public var description: String {
            guard let invalidValue else {
                return "A \(typeDescription) is not a JSON object or array, so it cannot be written as JSON."
            }
            let place = invalidValue.path.isEmpty ? "A key of the \(typeDescription)" : "The value at `\(invalidValue.path)`"
            return "\(place) is a \(invalidValue.typeDescription), which JSON cannot hold."
        }

        init(object: Any) {
            typeDescription = "\(type(of: object))"
            invalidValue = (object is [String: Any] || object is [Any]) ? Self.firstInvalidValue(in: object, at: "") : nil
        }

        /// The path and type of the first value (in sorted key order) that JSON cannot hold.
        private static func firstInvalidValue(in value: Any, at path: String) -> (path: String, typeDescription: String)? {
            if let dictionary = value as? [String: Any] {
                for (key, element) in dictionary.sorted(by: { $0.key < $1.key }) {
                    let child = path.isEmpty ? key : "\(path).\(key)"
                    if let found = firstInvalidValue(in: element, at: child) { return found }
                }
                return nil
            }
            if let array = value as? [Any] {
                for (index, element) in array.enumerated() {
                    if let found = firstInvalidValue(in: element, at: "\(path)[\(index)]") { return found }
                }
                return nil
            }
            if value is NSDictionary { return (path, "dictionary with non-String keys") }
            return JSONSerialization.isValidJSONObject([value]) ? nil : (path, "\(type(of: value))")
        }
    }

    /// Compact JSON with sorted keys.
    public static let `default` = JSONEncoding()
    /// Indented JSON with sorted keys.
    public static let prettyPrinted = JSONEncoding(options: .prettyPrinted)

    /// The writing options; `.sortedKeys` is always added when writing.
    public let options: JSONSerialization.WritingOptions

    /// Creates a JSON encoding.
    ///
    /// - Parameter options: The `JSONSerialization` writing options. None by default; `.sortedKeys` is
    ///                      always added.
    public init(options: JSONSerialization.WritingOptions = []) {
        self.options = options
    }

    /// Returns a copy of the request with the parameters as its JSON body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to encode into.
    ///   - parameters: The parameters; `nil` leaves the request unchanged (an empty dictionary is
    ///                 unchanged too).
    /// - Returns:      The encoded request.
    /// - Throws:       Any error `urlRequest.asURLRequest()` throws, or
    ///                 ``CurlfireError/parameterEncodingFailed(reason:)`` with `.jsonEncodingFailed`.
    public func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        guard let parameters, !parameters.isEmpty else { return try urlRequest.asURLRequest() }
        return try encode(urlRequest, withJSONObject: parameters)
    }

    /// Returns a copy of the request with any JSON object (an array or a dictionary) as its JSON body.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to encode into.
    ///   - jsonObject: The object, an array or a dictionary. `nil` by default, which leaves the request
    ///                 unchanged.
    /// - Returns:      The encoded request.
    /// - Throws:       Any error `urlRequest.asURLRequest()` throws, or
    ///                 ``CurlfireError/parameterEncodingFailed(reason:)`` with `.jsonEncodingFailed`.
    public func encode(_ urlRequest: URLRequestConvertible, withJSONObject jsonObject: Any? = nil) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let jsonObject else { return request }
        guard JSONSerialization.isValidJSONObject(jsonObject) else {
            let error = InvalidJSONObjectError(object: jsonObject)
            throw CurlfireError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: jsonObject, options: options.union(.sortedKeys))
            request.setContentTypeIfMissing(EncodingContentType.json)
            request.httpBody = data
        } catch {
            throw CurlfireError.parameterEncodingFailed(reason: .jsonEncodingFailed(error: error))
        }
        return request
    }
}
