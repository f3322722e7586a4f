import Foundation
import FoundationNetworking

/// One HTTP header: a name and a value. Names compare case-insensitively.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    /// The header's name, as given.
    public let name: String
    /// The header's value.
    public let value: String

    /// Creates a header from a name and a value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `"Name: value"`.
    public var description: String { "\(name): \(value)" }

    /// Whether the name or the value holds a CR, LF or NUL byte: such a header could split the
    /// request (header injection) and is never sent — the request fails with
    /// ``CurlfireError/invalidHeader(name:)``.
    public var isInjectionSafe: Bool {
        !name.isEmpty
            && !name.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 || $0 == 58 || $0 == 32 })
            && !value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 })
    }
}

extension HTTPHeader {
    /// `Accept: value`.
    public static func accept(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept", value: value) }
    /// `Accept-Encoding: value`.
    public static func acceptEncoding(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Encoding", value: value) }
    /// `Accept-Language: value`.
    public static func acceptLanguage(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Language", value: value) }
    /// `Content-Type: value`.
    public static func contentType(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Type", value: value) }
    /// `User-Agent: value`.
    public static func userAgent(_ value: String) -> HTTPHeader { HTTPHeader(name: "User-Agent", value: value) }
    /// `Authorization: value`.
    public static func authorization(_ value: String) -> HTTPHeader { HTTPHeader(name: "Authorization", value: value) }
    /// `Authorization: Basic <base64(username:password)>`.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let credential = Data("\(username):\(password)".utf8).base64EncodedString()
        return authorization("Basic \(credential)")
    }
    /// `Authorization: Bearer <token>`.
    public static func authorization(bearerToken: String) -> HTTPHeader { authorization("Bearer \(bearerToken)") }
}

/// An ordered, case-insensitive collection of ``HTTPHeader``s.
///
/// Written as a dictionary literal (`["Accept": "application/json"]`) like Alamofire 4's
/// `[String: String]`; setting a name that is already present replaces its value in place.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral, CustomStringConvertible {
    private var headers: [HTTPHeader] = []

    /// An empty set of headers.
    public init() {}

    /// Headers from a dictionary; later duplicates (case-insensitively) replace earlier ones.
    public init(_ dictionary: [String: String]) {
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) { update(name: name, value: value) }
    }

    /// Headers from a list, in order.
    public init(_ headers: [HTTPHeader]) {
        for header in headers { update(header) }
    }

    /// Headers from a dictionary literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { update(name: name, value: value) }
    }

    /// Headers from an array literal of ``HTTPHeader``s.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }

    /// Sets `name` to `value`, replacing an existing header of that name (case-insensitively).
    public mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Sets a header, replacing an existing header of that name (case-insensitively).
    public mutating func update(_ header: HTTPHeader) {
        if let index = index(of: header.name) {
            headers[index] = header
        } else {
            headers.append(header)
        }
    }

    /// Appends a header, replacing an existing header of the same name.
    public mutating func add(_ header: HTTPHeader) { update(header) }

    /// Appends a header, replacing an existing header of the same name.
    public mutating func add(name: String, value: String) { update(name: name, value: value) }

    /// Removes the header named `name`, if present.
    public mutating func remove(name: String) {
        if let index = index(of: name) { headers.remove(at: index) }
    }

    /// The value of the header named `name` (case-insensitive), or `nil`.
    public func value(for name: String) -> String? {
        index(of: name).map { headers[$0].value }
    }

    /// Reads or sets (`nil` removes) the value for `name`, case-insensitively.
    public subscript(_ name: String) -> String? {
        get { value(for: name) }
        set {
            if let newValue { update(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// The headers as a dictionary; names keep the case they were given.
    public var dictionary: [String: String] {
        Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The number of headers.
    public var count: Int { headers.count }

    /// Whether there are no headers.
    public var isEmpty: Bool { headers.isEmpty }

    /// Iterates the headers in order.
    public func makeIterator() -> IndexingIterator<[HTTPHeader]> { headers.makeIterator() }

    /// One `Name: value` line per header.
    public var description: String { headers.map(\.description).joined(separator: "\n") }

    private func index(of name: String) -> Int? {
        let lowercased = name.lowercased()
        return headers.firstIndex { $0.name.lowercased() == lowercased }
    }
}

extension HTTPURLResponse {
    /// The response's headers as ``HTTPHeaders``.
    public var headers: HTTPHeaders {
        var result = HTTPHeaders()
        for (key, value) in allHeaderFields {
            if let name = key as? String, let value = value as? String { result.update(name: name, value: value) }
        }
        return result
    }
}
