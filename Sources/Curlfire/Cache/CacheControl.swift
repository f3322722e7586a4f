import Foundation

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2, RFC 5861), parsed
/// leniently: unknown directives are ignored, names are case-insensitive, quoted values unquoted.
/// A field-qualified `no-cache="…"` or `private="…"` counts as the unqualified directive (the
/// conservative reading).
struct CacheControl: Equatable, Sendable {
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var proxyRevalidate = false
    var isPublic = false
    var isPrivate = false
    var onlyIfCached = false
    /// `max-age` in seconds (an invalid value counts as 0: stale).
    var maxAge: Int?
    /// `s-maxage` (shared caches only).
    var sharedMaxAge: Int?
    /// `max-stale`: `Int.max` when it has no value (any staleness).
    var maxStale: Int?
    var minFresh: Int?
    var staleWhileRevalidate: Int?
    var staleIfError: Int?

    /// Parses the values of every `Cache-Control` field (joined with commas or not).
    init(_ value: String?) {
        guard let value else { return }
        for directive in Self.split(value) {
            let (name, argument) = directive
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "public": isPublic = true
            case "private": isPrivate = true
            case "only-if-cached": onlyIfCached = true
            case "max-age": maxAge = Self.seconds(argument) ?? 0
            case "s-maxage": sharedMaxAge = Self.seconds(argument) ?? 0
            case "max-stale": maxStale = argument == nil ? Int.max : Self.seconds(argument)
            case "min-fresh": minFresh = Self.seconds(argument)
            case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(argument)
            case "stale-if-error": staleIfError = Self.seconds(argument)
            default: break
            }
        }
    }

    /// The request's directives, with `Pragma: no-cache` counting as `no-cache` when the request has
    /// no `Cache-Control` (RFC 9111 §5.4).
    init(request headers: [String: String]) {
        let cacheControl = HeaderLookup.value("cache-control", in: headers)
        self.init(cacheControl)
        if cacheControl == nil, let pragma = HeaderLookup.value("pragma", in: headers),
           pragma.lowercased().contains("no-cache") {
            noCache = true
        }
    }

    /// A delta-seconds value: digits only; larger than 2^31 is clamped to 2^31 (RFC 9111 §1.2.2).
    static func seconds(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text).map { min($0, 1 << 31) } ?? (1 << 31)
    }

    /// Splits `a, b=1, c="x, y"` into lowercased names and unquoted arguments; commas inside quotes
    /// do not split.
    static func split(_ value: String) -> [(String, String?)] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.compactMap { part in
            let trimmed = trimmingBlanks(part[...])
            guard !trimmed.isEmpty else { return nil }
            guard let equals = trimmed.firstIndex(of: "=") else { return (trimmed.lowercased(), nil) }
            let name = trimmingBlanks(trimmed[..<equals]).lowercased()
            var argument = trimmingBlanks(trimmed[trimmed.index(after: equals)...])
            if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                argument = argument.dropFirst().dropLast()
            }
            return (name, String(argument))
        }
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's OWS), without Foundation: this
    /// runs for every directive of every cache lookup.
    static func trimmingBlanks(_ text: Substring) -> Substring {
        var text = text
        while let first = text.utf8.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.utf8.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        return text
    }
}

/// Case-insensitive lookups in a header dictionary.
enum HeaderLookup {
    /// The value of `lowercaseName` in `headers`, ignoring case; several spellings are joined with ", ".
    static func value(_ lowercaseName: String, in headers: [String: String]) -> String? {
        // Runs several times per request: compare without allocating; only names spelled in more
        // than one case (rare) are gathered, sorted and joined.
        var first: (name: String, value: String)?
        var more: [(name: String, value: String)] = []
        for (name, value) in headers where HeaderName.equals(name, lowercaseName) {
            if first == nil { first = (name, value) } else { more.append((name, value)) }
        }
        guard let first else { return nil }
        guard !more.isEmpty else { return first.value }
        return ([first] + more).sorted { $0.name < $1.name }.map(\.value).joined(separator: ", ")
    }

    /// The value of `lowercaseName` among ordered fields, ignoring case; repeated fields joined with ", ".
    static func value(_ lowercaseName: String, in fields: [CachedEntry.Field]) -> String? {
        var values: [String] = []
        for field in fields where HeaderName.equals(field.name, lowercaseName) { values.append(field.value) }
        return values.isEmpty ? nil : values.count == 1 ? values[0] : values.joined(separator: ", ")
    }
}
