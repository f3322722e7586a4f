import Foundation

/// Re-indents and/or colours JSON text, token by token, keeping the server's key order and number
/// spelling (no round trip through `JSONSerialization`, which reorders keys and rewrites numbers).
public struct JSONStyler: Sendable {
    /// Whether to re-indent (4 spaces, `"key": value`), dropping the original whitespace.
    public var indent: Bool
    /// Whether to colour keys, strings, numbers and literals with ANSI escapes.
    public var colors: Bool

    /// Creates a styler.
    public init(indent: Bool, colors: Bool) {
        self.indent = indent
        self.colors = colors
    }

    /// The styled text, or `nil` when `data` is not valid JSON (print it unchanged then).
    /// Re-indented text ends with a newline.
    public func style(_ data: Data) -> String? {
        guard JSONText.isValid(data) else { return nil }
        let tokens = JSONTokenizer.tokens(Array(data))
        return indent ? indented(tokens) : coloured(tokens)
    }

    private func paint(_ token: JSONToken, isKey: Bool) -> String {
        let text = token.text
        guard colors else { return text }
        switch token.kind {
        case .string: return (isKey ? ANSIStyle.key : ANSIStyle.string).wrap(text)
        case .number: return ANSIStyle.number.wrap(text)
        case .literal: return ANSIStyle.literal.wrap(text)
        case .punctuation, .whitespace: return text
        }
    }

    private func coloured(_ tokens: [JSONToken]) -> String {
        var out = ""
        for (index, token) in tokens.enumerated() {
            out += paint(token, isKey: isKey(at: index, in: tokens))
        }
        return out
    }

    private func indented(_ tokens: [JSONToken]) -> String {
        let significant = tokens.filter { $0.kind != .whitespace }
        var out = ""
        var depth = 0
        var index = 0
        func newline() { out += "\n" + String(repeating: "    ", count: depth) }
        while index < significant.count {
            let token = significant[index]
            switch token.text {
            case "{", "[":
                let close = token.text == "{" ? "}" : "]"
                if index + 1 < significant.count, significant[index + 1].text == close {
                    out += token.text + close
                    index += 2
                    continue
                }
                out += token.text
                depth += 1
                newline()
            case "}", "]":
                depth -= 1
                newline()
                out += token.text
            case ",":
                out += ","
                newline()
            case ":":
                out += ": "
            default:
                out += paint(token, isKey: isKey(at: index, in: significant))
            }
            index += 1
        }
        return out + "\n"
    }

    /// A string is a key when the next non-whitespace token is `:`.
    private func isKey(at index: Int, in tokens: [JSONToken]) -> Bool {
        guard tokens[index].kind == .string else { return false }
        var next = index + 1
        while next < tokens.count, tokens[next].kind == .whitespace { next += 1 }
        return next < tokens.count && tokens[next].text == ":"
    }
}

/// A lexical token of JSON text that is already known to be valid.
struct JSONToken: Equatable {
    enum Kind { case punctuation, string, number, literal, whitespace }
    let kind: Kind
    let text: String
}

enum JSONTokenizer {
    /// Splits valid JSON into tokens; the concatenated texts equal the input.
    static func tokens(_ bytes: [UInt8]) -> [JSONToken] {
        var tokens: [JSONToken] = []
        var index = 0
        func take(_ kind: JSONToken.Kind, _ end: Int) {
            tokens.append(JSONToken(kind: kind, text: String(decoding: bytes[index..<end], as: UTF8.self)))
            index = end
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                var end = index
                while end < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end]) { end += 1 }
                take(.whitespace, end)
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                take(.string, min(end + 1, bytes.count))
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
                 UInt8(ascii: ","), UInt8(ascii: ":"):
                take(.punctuation, index + 1)
            default:
                var end = index
                while end < bytes.count, !isDelimiter(bytes[end]) { end += 1 }
                let isLiteral = byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") || byte == UInt8(ascii: "n")
                take(isLiteral ? .literal : .number, max(end, index + 1))
            }
        }
        return tokens
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "\""):
            return true
        default:
            return false
        }
    }
}
