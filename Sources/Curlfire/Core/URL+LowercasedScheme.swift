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
        let scheme = String(Substring(text.utf8.prefix(length)))
        return hasUppercase ? scheme.lowercased() : scheme
    }
}
