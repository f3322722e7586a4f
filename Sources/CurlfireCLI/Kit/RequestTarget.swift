import Foundation

/// The method, URL and items split from the positional arguments, with httpie's URL shorthands.
public struct RequestTarget: Equatable, Sendable {
    /// The method given, upper-cased; `nil` when left out.
    public let method: String?
    /// The URL as given.
    public let url: String
    /// The remaining arguments: request items.
    public let items: [String]

    /// Methods recognised in any case; any other all-upper-case word is taken as a method too.
    static let knownMethods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"]

    /// Splits `[METHOD] URL [ITEM...]`.
    ///
    /// The first argument is a method when another argument follows and it is a known method in
    /// any case (`get`, `POST`) or an all-upper-case word (`PROPFIND`). Otherwise it is the URL.
    ///
    /// - Throws: ``RequestItemError`` when no URL is given.
    public static func split(_ arguments: [String]) throws(RequestItemError) -> RequestTarget {
        guard let first = arguments.first else {
            throw RequestItemError(item: "", reason: "a URL is required")
        }
        if arguments.count >= 2, isMethod(first) {
            return RequestTarget(method: first.uppercased(), url: arguments[1], items: Array(arguments.dropFirst(2)))
        }
        return RequestTarget(method: nil, url: first, items: Array(arguments.dropFirst()))
    }

    static func isMethod(_ word: String) -> Bool {
        guard !word.isEmpty, word.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) else {
            return false
        }
        return knownMethods.contains(word.uppercased()) || word == word.uppercased()
    }

    private init(method: String?, url: String, items: [String]) {
        self.method = method
        self.url = url
        self.items = items
    }

    /// The URL with a scheme: `example.org/x` → `http://example.org/x`, `:8080/x` →
    /// `http://localhost:8080/x`, `://x` is refused; an explicit scheme is kept.
    ///
    /// - Parameters:
    ///   - url:           the URL as given.
    ///   - defaultScheme: the scheme to add. `http` by default.
    ///   - query:         `name==value` items, appended to the query in order.
    /// - Throws: ``RequestItemError`` when the result is not an absolute URL with a host.
    public static func normalizedURL(_ url: String, defaultScheme: String = "http",
                                     query: [(name: String, value: String)] = []) throws(RequestItemError) -> URL {
        var text = url
        if text.hasPrefix(":") && !text.hasPrefix("://") {
            // httpie: ":3000/path" and ":/path" mean localhost.
            let rest = text.dropFirst()
            text = rest.first == "/" || rest.isEmpty ? "localhost" + rest : "localhost:" + rest
        }
        if text.range(of: "^[A-Za-z][A-Za-z0-9+.-]*://", options: .regularExpression) == nil {
            text = defaultScheme + "://" + text
        }
        if !query.isEmpty {
            let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
            let fragment = text[fragmentStart...]
            var base = String(text[..<fragmentStart])
            let pairs = query.map { FormEncoding.encode($0.name, spaceAsPlus: false) + "=" + FormEncoding.encode($0.value, spaceAsPlus: false) }
            base += (base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?")
            text = base + pairs.joined(separator: "&") + fragment
        }
        guard let parsed = URL(string: text), let host = parsed.host, !host.isEmpty else {
            throw RequestItemError(item: url, reason: "not a valid URL")
        }
        return parsed
    }
}
