import Foundation
import FoundationNetworking

/// `urlencoding`: nested `[String: Any]` parameters through ``URLEncoding`` with every destination,
/// array and bool option, into the query and into the body.
///
/// Invariants: a NaN or infinite number fails with `.unencodableValue` and nothing else fails; the
/// query or body is printable ASCII; `URLComponents` reads back exactly the expected number of items
/// (plus the URL's own); every decoded name and every string, integer and boolean value equals the
/// one expected from the tree (keys sorted, brackets per the array encoding, `NSNull` as empty).
enum URLEncodingTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let arrayEncoding: URLEncoding.ArrayEncoding = [.brackets, .noBrackets, .indexInBrackets][input.choose(3)]
        let boolEncoding: URLEncoding.BoolEncoding = input.bool() ? .numeric : .literal
        let destination: URLEncoding.Destination = [.methodDependent, .queryString, .httpBody][input.choose(3)]
        let method = ["GET", "POST", "HEAD", "DELETE", "PUT", "get"][input.choose(6)]
        let base = baseURLs[input.choose(baseURLs.count)]
        let entries = input.entries(count: input.choose(6), depth: 3, richScalars: false)
        let parameters = Dictionary(uniqueKeysWithValues: entries.map { ($0.key, anyValue($0.value)) })
        let encoding = URLEncoding(destination: destination, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)

        var request = URLRequest(url: URL(string: base.url)!)
        request.httpMethod = method
        let result: URLRequest
        do {
            result = try encoding.encode(request, with: parameters)
        } catch let CurlfireError.parameterEncodingFailed(reason: .unencodableValue(key, _)) {
            FuzzCheck.require(entries.contains { $0.value.hasNonFiniteNumber }, "unencodableValue(\(key)) without NaN/inf")
            return
        } catch {
            FuzzCheck.fail("unexpected error \(error)")
        }
        FuzzCheck.require(!entries.contains { $0.value.hasNonFiniteNumber }, "NaN/inf was encoded")

        let expected = entries.sorted { $0.key < $1.key }.flatMap {
            expectedPairs(key: $0.key, tree: $0.value, arrays: arrayEncoding, bools: boolEncoding)
        }
        let inQuery: Bool
        switch destination {
        case .queryString: inQuery = true
        case .httpBody: inQuery = false
        case .methodDependent: inQuery = ["GET", "HEAD", "DELETE"].contains(method.uppercased())
        }
        if inQuery {
            FuzzCheck.require(result.httpBody == nil, "query destination wrote a body")
            checkQuery(of: result, base: base, expected: expected)
        } else {
            FuzzCheck.require(result.url == request.url, "body destination changed the URL")
            let body = result.httpBody ?? Data()
            FuzzCheck.require(expected.isEmpty == body.isEmpty, "body emptiness \(body.count) vs \(expected.count) pairs")
            FuzzCheck.require(FuzzCheck.isPrintableASCII(body), "body is not printable ASCII")
            let text = String(decoding: body, as: UTF8.self)
            guard let components = URLComponents(string: "http://h/?" + text) else { FuzzCheck.fail("body is not a query") }
            FuzzCheck.require((components.queryItems ?? []).count == expected.count, "body item count")
            compare(FuzzCheck.formPairs(text), expected)
        }
    }

    private static let baseURLs: [(url: String, items: Int)] = [
        ("https://example.com/path", 0), ("https://example.com/p?x=1&y", 2), ("https://example.com/p#frag", 0),
        ("http://[::1]:8080/a%20b/?", 0), ("https://user@example.com/?q=%26", 1),
    ]

    private static func checkQuery(of request: URLRequest, base: (url: String, items: Int), expected: [(String, String?)]) {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            FuzzCheck.fail("the encoded URL does not parse")
        }
        let query = components.percentEncodedQuery ?? ""
        FuzzCheck.require(FuzzCheck.isPrintableASCII(query.utf8), "query is not printable ASCII: \(query)")
        let items = components.queryItems ?? []
        let total = expected.isEmpty ? base.items : base.items + expected.count
        FuzzCheck.require(items.count == total, "query items \(items.count), expected \(total): \(query)")
        if base.url.hasSuffix("#frag") { FuzzCheck.require(components.fragment == "frag", "fragment lost") }
        guard !expected.isEmpty else { return }
        let ours = query.split(separator: "&", omittingEmptySubsequences: false).suffix(expected.count).joined(separator: "&")
        compare(FuzzCheck.formPairs(ours), expected)
    }

    private static func compare(_ decoded: [(String, String)]?, _ expected: [(String, String?)]) {
        guard let decoded else { FuzzCheck.fail("malformed percent escape") }
        FuzzCheck.require(decoded.count == expected.count, "pair count \(decoded.count) vs \(expected.count)")
        for (got, want) in zip(decoded, expected) {
            FuzzCheck.require(Array(got.0.utf8) == Array(want.0.utf8), "name \(got.0.debugDescription) vs \(want.0.debugDescription)")
            if let value = want.1 {
                FuzzCheck.require(Array(got.1.utf8) == Array(value.utf8), "value \(got.1.debugDescription) vs \(value.debugDescription)")
            }
        }
    }

    /// The tree as the `Any` a caller would pass.
    static func anyValue(_ tree: FuzzTree) -> Any {
        switch tree {
        case let .string(value): return value
        case let .int(value): return value
        case let .double(value), let .date(value): return value
        case let .bool(value): return value
        case .null: return NSNull()
        case let .data(bytes): return bytes.map { Int($0) }
        case let .array(elements): return elements.map(anyValue)
        case let .object(entries): return Dictionary(uniqueKeysWithValues: entries.map { ($0.key, anyValue($0.value)) })
        }
    }

    /// The unescaped pairs the encoding must produce; a `nil` value is not compared (a double).
    private static func expectedPairs(key: String, tree: FuzzTree, arrays: URLEncoding.ArrayEncoding,
                                      bools: URLEncoding.BoolEncoding) -> [(String, String?)] {
        switch tree {
        case let .string(value): return [(key, value)]
        case let .int(value): return [(key, String(value))]
        case .double, .date: return [(key, nil)]
        case let .bool(value): return [(key, bools.encode(value))]
        case .null: return [(key, "")]
        case let .data(bytes):
            return bytes.enumerated().map { (arrays.encode(key: key, atIndex: $0.offset), String($0.element)) }
        case let .array(elements):
            return elements.enumerated().flatMap {
                expectedPairs(key: arrays.encode(key: key, atIndex: $0.offset), tree: $0.element, arrays: arrays, bools: bools)
            }
        case let .object(entries):
            return entries.sorted { $0.key < $1.key }.flatMap {
                expectedPairs(key: "\(key)[\($0.key)]", tree: $0.value, arrays: arrays, bools: bools)
            }
        }
    }
}
