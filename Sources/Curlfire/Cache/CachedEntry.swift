import Foundation
import FoundationNetworking

/// One stored response: what the cache keeps for a URL (RFC 9111 §3), in memory or on disk.
struct CachedEntry: Codable, Equatable, Sendable {
    /// A header field, in the order received.
    struct Field: Codable, Equatable, Sendable {
        var name: String
        var value: String
    }

    /// The cache key: the request URL without its fragment.
    var key: String
    var statusCode: Int
    var fields: [Field]
    var body: Data
    /// When the request that fetched (or last revalidated) the response was sent (`request_time`).
    var requestTime: Date
    /// When its response arrived (`response_time`).
    var responseTime: Date
    /// The lowercased names of the response's `Vary`, and the normalised values the request had
    /// for them (absent names are absent from `varyValues`).
    var varyNames: [String] = []
    var varyValues: [String: String] = [:]

    /// The first value of a header (several fields of one name are joined with ", ").
    func value(_ lowercaseName: String) -> String? { HeaderLookup.value(lowercaseName, in: fields) }

    /// The response's `Cache-Control`.
    var cacheControl: CacheControl { CacheControl(value("cache-control")) }

    /// The bytes the entry takes (body plus header text), the cost the tiers count.
    var cost: Int { body.count + fields.reduce(key.utf8.count + 64) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } }

    /// The key of a request: its URL without the fragment.
    static func key(for url: URL?) -> String? {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.fragment = nil
        return components.string
    }

    /// The header fields of a response, in a stable order.
    static func fields(of response: HTTPURLResponse) -> [Field] {
        response.allHeaderFields.compactMap { key, value -> Field? in
            guard let name = key as? String else { return nil }
            return Field(name: name, value: "\(value)")
        }.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// The entry as the response the engine would have produced (status line and fields), with
    /// extra fields (an `Age`) replacing stored ones of the same name.
    func lazyResponse(url: URL, replacing extra: [Field] = []) -> LazyResponse {
        var head = ResponseHead()
        func feed(_ line: String) {
            var bytes = Array(line.utf8)
            bytes.withUnsafeMutableBufferPointer { head.consume(UnsafeBufferPointer($0)) }
        }
        feed("HTTP/1.1 \(statusCode) \r\n")
        let replaced = Set(extra.map { $0.name.lowercased() })
        for field in fields where !replaced.contains(field.name.lowercased()) { feed("\(field.name): \(field.value)\r\n") }
        for field in extra { feed("\(field.name): \(field.value)\r\n") }
        feed("\r\n")
        return LazyResponse(head: head, url: url)
    }
}
