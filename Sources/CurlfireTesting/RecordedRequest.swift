import Foundation

/// A request as a ``MockServer`` received it: what the client under test really sent.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The method, as sent (`GET`, `POST`, …).
    public let method: String
    /// The request target as sent: the path with its query, e.g. `/search?q=swift&page=2`.
    public let path: String
    /// The HTTP version of the request line, e.g. `HTTP/1.1`.
    public let httpVersion: String
    /// The header fields, looked up case-insensitively (`headers["content-type"]`).
    public let headers: MockHeaders
    /// The body after removing any chunked transfer coding; empty when there was none.
    public let body: Data
    /// The sequence number of the connection the request arrived on, from `0` in accept order:
    /// two requests with the same index shared a (kept-alive) connection.
    public let connectionIndex: Int
    /// The request's position among all requests the server received, from `0`.
    public let sequenceNumber: Int

    /// Creates a recorded request; the server does this, tests may too (for a dispatcher's unit test).
    ///
    /// - Parameters:
    ///   - method:          The method.
    ///   - path:            The request target (path and query).
    ///   - httpVersion:     The HTTP version. `"HTTP/1.1"` by default.
    ///   - headers:         The header fields. None by default.
    ///   - body:            The body. Empty by default.
    ///   - connectionIndex: The connection's sequence number. `0` by default.
    ///   - sequenceNumber:  The request's sequence number. `0` by default.
    public init(method: String, path: String, httpVersion: String = "HTTP/1.1", headers: MockHeaders = MockHeaders([]),
                body: Data = Data(), connectionIndex: Int = 0, sequenceNumber: Int = 0) {
        self.method = method
        self.path = path
        self.httpVersion = httpVersion
        self.headers = headers
        self.body = body
        self.connectionIndex = connectionIndex
        self.sequenceNumber = sequenceNumber
    }

    /// The value of the header field `name` (any case), or `nil`; the same as `headers[name]`.
    ///
    /// - Parameter name: The field name.
    /// - Returns:        The value (repeated fields joined with `", "`), or `nil`.
    public func header(_ name: String) -> String? { headers[name] }

    /// The path without its query: `/search` for `/search?q=swift`.
    public var pathWithoutQuery: String {
        path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
    }

    /// The query without the `?`, or `nil` when the target has none.
    public var query: String? {
        path.firstIndex(of: "?").map { String(path[path.index(after: $0)...]) }
    }

    /// The query's items (percent-decoded), in order; empty when there is no query.
    public var queryItems: [URLQueryItem] {
        guard let query else { return [] }
        var components = URLComponents()
        components.percentEncodedQuery = query
        return components.queryItems ?? []
    }

    /// The body decoded as UTF-8, or `nil` when it is not valid UTF-8.
    public var bodyString: String? { String(data: body, encoding: .utf8) }

    /// The body decoded from JSON.
    ///
    /// - Parameters:
    ///   - type:    The type to decode.
    ///   - decoder: The decoder. A new `JSONDecoder()` by default.
    /// - Returns:   The decoded value.
    /// - Throws:    The decoder's error when the body is not that JSON.
    public func decodeBody<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }

    /// `POST /path (123 bytes, connection 0)`.
    public var description: String {
        "\(method) \(path) (\(body.count) bytes, connection \(connectionIndex))"
    }
}
