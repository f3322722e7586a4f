import Foundation

extension URL {
    /// The scheme, lowercased, as `scheme?.lowercased()` gives it: read from the first bytes of
    /// `absoluteString` when they are a scheme (RFC 3986: a letter, then letters, digits, `+`, `-` or
    /// `.`, then `:`), else from Foundation. Foundation parses the scheme out of the URL anew on each
    /// read, about a microsecond the first time on a thread whose caches were just used for other
    /// work; a request reads it several times (docs/Performance.md, "ninth session").
    var lowercasedScheme: String? {
        let text = absoluteString
        var length = 0
        var hasUppercase = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: ":") { break }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): break
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): hasUppercase = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                guard length > 0 else { return scheme?.lowercased() }
            default:
                return scheme?.lowercased()
            }
            length += 1
        }
        guard length > 0, length < text.utf8.count else { return scheme?.lowercased() }
        if !hasUppercase, let known = Self.knownScheme(text, length: length) { return known }
        let scheme = String(Substring(text.utf8.prefix(length)))
        return hasUppercase ? scheme.lowercased() : scheme
    }

    /// `http` or `https` as a literal when `text` starts with it (a lowercase scheme `length` bytes
    /// long): nearly every request's, read several times per request, so no string is made for it.
    private static func knownScheme(_ text: String, length: Int) -> String? {
        guard length == 4 || length == 5 else { return nil }
        let http = "http".utf8, https = "https".utf8
        if length == 4, text.utf8.starts(with: http) { return "http" }
        if length == 5, text.utf8.starts(with: https) { return "https" }
        return nil
    }
}
