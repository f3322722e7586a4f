import Foundation

/// A parsed `Strict-Transport-Security` response header (RFC 6797 §6.1).
///
/// The grammar is `[ directive ] *( ";" [ directive ] )`, a directive being a token name with an
/// optional `=` and a token or quoted-string value. Directive names are compared case-insensitively;
/// unknown directives are ignored; a header that repeats a directive, lacks `max-age`, gives
/// `max-age` anything but digits, gives `includeSubDomains` a value, or breaks the grammar is
/// ignored as a whole (`parse` returns `nil`), as §6.1 requires.
struct StrictTransportSecurity: Sendable, Equatable {
    /// `max-age`, in seconds: how long the host stays a known HSTS host (0 removes it).
    var maxAge: UInt64
    /// Whether `includeSubDomains` was given.
    var includesSubdomains: Bool

    /// The largest `max-age` kept (about 100 years); larger values are clamped to it.
    static let maximumAge: UInt64 = 3_153_600_000

    /// Parses a header value; `nil` when it does not conform. When the value joins several header
    /// fields with commas, only the first field is read (§8.1: only the first is processed).
    static func parse(_ value: String) -> StrictTransportSecurity? {
        var scanner = Scanner(Array(value.utf8))
        var maxAge: UInt64?
        var includesSubdomains = false
        var seen: Set<String> = []
        while true {
            scanner.skipSpace()
            if scanner.atEnd || scanner.peek == comma { break }
            if scanner.peek == semicolon { scanner.advance(); continue } // an empty directive
            guard let name = scanner.token()?.lowercased() else { return nil }
            scanner.skipSpace()
            var directiveValue: String?
            if scanner.peek == equals {
                scanner.advance()
                scanner.skipSpace()
                if scanner.peek == quote {
                    guard let quoted = scanner.quotedString() else { return nil }
                    directiveValue = quoted
                } else {
                    guard let token = scanner.token() else { return nil }
                    directiveValue = token
                }
                scanner.skipSpace()
            }
            guard seen.insert(name).inserted else { return nil } // a repeated directive
            switch name {
            case "max-age":
                guard let digits = directiveValue, !digits.isEmpty,
                      digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
                maxAge = UInt64(digits).map { min($0, maximumAge) } ?? maximumAge // overflow: clamped
            case "includesubdomains":
                guard directiveValue == nil else { return nil }
                includesSubdomains = true
            default:
                break // unknown directives are ignored
            }
            if scanner.atEnd || scanner.peek == comma { break }
            guard scanner.peek == semicolon else { return nil }
            scanner.advance()
        }
        guard let maxAge else { return nil }
        return StrictTransportSecurity(maxAge: maxAge, includesSubdomains: includesSubdomains)
    }

    private static let comma = UInt8(ascii: ","), semicolon = UInt8(ascii: ";")
    private static let equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")

    /// A cursor over the header's bytes (RFC 2616 tokens, quoted-strings and linear white space).
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[index] }
        mutating func advance() { index += 1 }

        mutating func skipSpace() {
            while let byte = peek, byte == 32 || byte == 9 { advance() }
        }

        /// A token (RFC 2616 §2.2): visible ASCII except separators; `nil` when empty.
        mutating func token() -> String? {
            let start = index
            while let byte = peek, Self.isTokenByte(byte) { advance() }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A quoted-string with backslash escapes; `nil` when unterminated.
        mutating func quotedString() -> String? {
            advance() // the opening quote
            var content: [UInt8] = []
            while let byte = peek {
                advance()
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: content, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    content.append(escaped)
                    advance()
                case 0..<32 where byte != 9, 127: return nil
                default: content.append(byte)
                }
            }
            return nil
        }

        static func isTokenByte(_ byte: UInt8) -> Bool {
            guard byte > 32, byte < 127 else { return false }
            return !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
        }
    }
}
