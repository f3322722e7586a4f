import Foundation
import FoundationNetworking

/// Encodes parameters as a URL-encoded query string (`a=1&b=2`), either into the URL's query or into
/// the body as `application/x-www-form-urlencoded`.
///
/// The output is deterministic: dictionary keys are sorted at every depth, `Set` elements are sorted by
/// their encoded text, and array elements keep their order. Nested values follow the convention most
/// servers (Rails, PHP, Express with `qs`) parse:
///
/// | value                          | encoded (before escaping)        |
/// |--------------------------------|----------------------------------|
/// | `["a": ["b": ["c": "x"]]]`     | `a[b][c]=x`                      |
/// | `["a": ["x", "y"]]`            | `a[]=x&a[]=y` (``ArrayEncoding``) |
/// | `["a": [["b": 1], ["b": 2]]]`  | `a[][b]=1&a[][b]=2`              |
/// | `["a": true]`                  | `a=1` (``BoolEncoding``)          |
/// | `["a": NSNull()]`, a `nil`     | `a=`                             |
///
/// Every key and value is then escaped with ``escape(_:)``. For example
///
/// ```swift
/// ["name": "steve", "phone": ["mobile": "xx", "home": "xx"],
///  "families": ["father", "mother"], "nums": Set(["1", "2"])]
/// ```
///
/// encodes to
/// `families%5B%5D=father&families%5B%5D=mother&name=steve&nums%5B%5D=1&nums%5B%5D=2&phone%5Bhome%5D=xx&phone%5Bmobile%5D=xx`.
///
/// Values are spelled as follows: a `Bool` (or a boxed `NSNumber` boolean) per ``BoolEncoding``; a
/// `Double` that is integral and below 10²¹ in magnitude as plain digits (`1.0` → `1`,
/// `1e20` → `100000000000000000000`), any other finite `Double` in Swift's shortest round-tripping form
/// (`1.5` → `1.5`, `1e21` → `1e+21`); NaN and infinities throw; integers, `Decimal` and `NSNumber` as
/// their decimal digits; a `URL` as its absolute string; anything else as `String(describing:)`. The
/// numbers `1` and `0` are never treated as booleans, whatever their type.
///
/// When the parameters go in the body, `Content-Type` is set to
/// `application/x-www-form-urlencoded; charset=utf-8` unless the request already has one.
public struct URLEncoding: ParameterEncoding {
    // MARK: - Options

    /// Where the encoded parameters go.
    public enum Destination: Sendable {
        /// The URL's query for `GET`, `HEAD` and `DELETE` requests (and requests without a method), the
        /// body for every other method.
        case methodDependent
        /// Always the URL's query.
        case queryString
        /// Always the body.
        case httpBody
    }

    /// How the key of an array element is written.
    public enum ArrayEncoding: Sendable {
        /// Empty brackets after the key: `foo[]=a&foo[]=b`.
        case brackets
        /// The bare key, repeated: `foo=a&foo=b`.
        case noBrackets
        /// The element's index in brackets: `foo[0]=a&foo[1]=b`.
        case indexInBrackets

        /// The key for the element at `index` of the array at `key`.
        func encode(key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: return "\(key)[]"
            case .noBrackets: return key
            case .indexInBrackets: return "\(key)[\(index)]"
            }
        }
    }

    /// How a boolean is written. Only real booleans are affected, never the numbers `1` and `0`.
    public enum BoolEncoding: Sendable {
        /// `1` for `true`, `0` for `false`.
        case numeric
        /// `true` and `false`.
        case literal

        /// The text for `value`.
        func encode(_ value: Bool) -> String {
            switch self {
            case .numeric: return value ? "1" : "0"
            case .literal: return value ? "true" : "false"
            }
        }
    }

    // MARK: - Presets

    /// Method-dependent destination, `.brackets` arrays, `.numeric` booleans.
    public static let `default` = URLEncoding()
    /// The same as ``default``.
    public static let methodDependent = URLEncoding()
    /// Always the URL's query, `.brackets` arrays, `.numeric` booleans.
    public static let queryString = URLEncoding(destination: .queryString)
    /// Always the body, `.brackets` arrays, `.numeric` booleans.
    public static let httpBody = URLEncoding(destination: .httpBody)

    // MARK: - Properties

    /// Where the encoded parameters go.
    public let destination: Destination
    /// How array element keys are written.
    public let arrayEncoding: ArrayEncoding
    /// How booleans are written.
    public let boolEncoding: BoolEncoding

    /// Creates a URL encoding.
    ///
    /// - Parameters:
    ///   - destination:   Where the encoded parameters go. `.methodDependent` by default.
    ///   - arrayEncoding: How array element keys are written. `.brackets` by default.
    ///   - boolEncoding:  How booleans are written. `.numeric` by default.
    public init(
        destination: Destination = .methodDependent,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    // MARK: - Encoding

    /// Returns a copy of the request with the parameters in its query or body (see ``Destination``).
    ///
    /// `nil` or empty parameters, or parameters that encode to nothing (such as only empty arrays),
    /// leave the request unchanged. An existing query is kept in front of the new one.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to encode into.
    ///   - parameters: The parameters to encode.
    /// - Returns:      The encoded request.
    /// - Throws:       Any error `urlRequest.asURLRequest()` throws;
    ///                 ``CurlfireError/parameterEncodingFailed(reason:)`` with `.unencodableValue` for a
    ///                 NaN or infinite number, or `.missingURL` when a query is needed and the request
    ///                 has no URL.
    public func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters, !parameters.isEmpty else { return request }
        let query = try self.query(parameters)
        guard !query.isEmpty else { return request }

        if usesQuery(for: request) {
            try request.appendPercentEncodedQuery(query)
        } else {
            request.setContentTypeIfMissing(EncodingContentType.formURLEncoded)
            request.httpBody = Data(query.utf8)
        }
        return request
    }

    /// The escaped `key=value` pairs for one parameter, recursing into dictionaries, arrays and sets.
    ///
    /// - Parameters:
    ///   - key:   The parameter's key, unescaped (it may already carry brackets, as `a[b]`).
    ///   - value: The parameter's value.
    /// - Returns: The escaped pairs, in output order.
    /// - Throws:  ``CurlfireError/parameterEncodingFailed(reason:)`` with `.unencodableValue` for a NaN or
    ///            infinite number.
    public func queryComponents(fromKey key: String, value: Any) throws -> [(String, String)] {
        guard let value = Self.unwrapped(value) else { return [(escape(key), "")] }

        if let dictionary = value as? [String: Any] {
            return try dictionary.keys.sorted().flatMap { nestedKey in
                try queryComponents(fromKey: "\(key)[\(nestedKey)]", value: dictionary[nestedKey] as Any)
            }
        }
        if let dictionary = value as? [AnyHashable: Any] {
            let entries = dictionary.map { ("\($0.key.base)", $0.value) }.sorted { $0.0 < $1.0 }
            return try entries.flatMap { try queryComponents(fromKey: "\(key)[\($0.0)]", value: $0.1) }
        }
        if let array = value as? [Any] {
            return try components(forElements: array, key: key)
        }
        if let set = value as? Set<AnyHashable> {
            return try components(forElements: sortedElements(of: set), key: key)
        }
        return [(escape(key), escape(try string(for: value, key: key)))]
    }

    /// Percent-escapes a key or value for a query (RFC 3986 §3.4).
    ///
    /// Left as they are: ASCII letters and digits, `-`, `.`, `_`, `~`, `/` and `?`. Everything else is
    /// written as `%XX` per UTF-8 byte: `:#[]@!$&'()*+,;=`, `%` (`%25`), space (`%20`), `+` (`%2B`),
    /// control characters and all non-ASCII characters (`é` → `%C3%A9`).
    ///
    /// - Parameter string: The text to escape.
    /// - Returns:          The escaped text.
    public func escape(_ string: String) -> String {
        FormValueFormatting.escape(string)
    }

    // MARK: - Private

    private func usesQuery(for request: URLRequest) -> Bool {
        switch destination {
        case .methodDependent: return request.encodesParametersInURL
        case .queryString: return true
        case .httpBody: return false
        }
    }

    private func query(_ parameters: Parameters) throws -> String {
        // `name=value` pairs joined by `&`, written into one string (no array of pairs, of
        // `name=value` strings, or of parts to join).
        var query = ""
        var first = true
        for key in parameters.keys.sorted() {
            for (name, value) in try queryComponents(fromKey: key, value: parameters[key] as Any) {
                if !first { query += "&" }
                first = false
                query += name
                query += "="
                query += value
            }
        }
        return query
    }

    private func components(forElements elements: [Any], key: String) throws -> [(String, String)] {
        try elements.enumerated().flatMap { index, element in
            try queryComponents(fromKey: arrayEncoding.encode(key: key, atIndex: index), value: element)
        }
    }

    /// A set's elements in a stable order: by their encoded text under an empty key.
    private func sortedElements(of set: Set<AnyHashable>) throws -> [Any] {
        try set.map { element -> (String, Any) in
            let text = try queryComponents(fromKey: "", value: element.base).map { "\($0)=\($1)" }
            return (text.joined(separator: "&"), element.base)
        }
        .sorted { $0.0 < $1.0 }
        .map(\.1)
    }

    private func string(for value: Any, key: String) throws -> String {
        let unencodable = { (description: String) in
            CurlfireError.parameterEncodingFailed(reason: .unencodableValue(key: key, description: description))
        }
        switch FormValueFormatting.scalar(value) {
        case let .bool(bool): return boolEncoding.encode(bool)
        case let .double(double):
            guard let text = FormValueFormatting.string(for: double) else { throw unencodable("\(double)") }
            return text
        case let .float(float):
            guard let text = FormValueFormatting.string(for: float) else { throw unencodable("\(float)") }
            return text
        case let .number(text): return text
        case .other:
            if let url = value as? URL { return url.absoluteString }
            return String(describing: value)
        }
    }

    /// The value inside any level of `Optional`, or `nil` for a `nil` optional or `NSNull`.
    static func unwrapped(_ value: Any) -> Any? {
        if value is NSNull { return nil }
        // A conformance check, where a `Mirror` allocated its children for every value.
        guard let optional = value as? any OptionalParameter else { return value }
        guard let wrapped = optional.wrappedParameter else { return nil }
        return unwrapped(wrapped)
    }
}

/// An `Optional` of any type, seen through `Any` (``URLEncoding/unwrapped(_:)``).
private protocol OptionalParameter {
    /// The wrapped value, `nil` for `.none`.
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    fileprivate var wrappedParameter: Any? { map { $0 as Any } }
}
