/// One `name<separator>value` argument after the URL, in httpie's syntax.
///
/// | syntax          | meaning                                               |
/// |-----------------|-------------------------------------------------------|
/// | `Header:value`  | a request header (`Header:` alone removes a default)  |
/// | `name==value`   | a query parameter appended to the URL                 |
/// | `name=value`    | a string field of the body                            |
/// | `name:=json`    | a raw JSON field (`count:=3`, `tags:='["a","b"]'`)    |
/// | `name@path`     | a file field (multipart form)                         |
/// | `name=@path`    | a string field read from a file                       |
/// | `name:=@path`   | a raw JSON field read from a file                     |
///
/// The first separator from the left wins, the longest at that position. A backslash in the name
/// escapes a separator character: `a\=b=c` is the field `a=b` with the value `c`.
public enum RequestItem: Equatable, Sendable {
    /// `Header:value`; an empty value removes a default header.
    case header(name: String, value: String)
    /// `name==value`.
    case query(name: String, value: String)
    /// `name=value`.
    case field(name: String, value: String)
    /// `name:=json`: the JSON text as given.
    case jsonField(name: String, json: String)
    /// `name@path`.
    case file(name: String, path: String)
    /// `name=@path`.
    case fieldFromFile(name: String, path: String)
    /// `name:=@path`.
    case jsonFromFile(name: String, path: String)

    /// Whether the item contributes to the request body.
    public var isData: Bool {
        switch self {
        case .header, .query: return false
        default: return true
        }
    }

    /// Separators, longest first so that `:=@` wins over `:=` and `:` at the same position.
    private static let separators: [String] = [":=@", "==", "=@", ":=", "=", ":", "@"]

    /// Parses one item.
    ///
    /// - Parameter text: the argument as given on the command line.
    /// - Throws: ``RequestItemError`` when no separator is found, the name is empty, a header name
    ///   is not an HTTP token, or a `:=` value is not valid JSON.
    public static func parse(_ text: String) throws(RequestItemError) -> RequestItem {
        let characters = Array(text)
        var name = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, "\\:=@".contains(characters[index + 1]) {
                name.append(characters[index + 1])
                index += 2
                continue
            }
            for separator in separators where matches(separator, in: characters, at: index) {
                let value = String(characters[(index + separator.count)...])
                return try make(name: name, separator: separator, value: value, item: text)
            }
            name.append(character)
            index += 1
        }
        throw RequestItemError(item: text, reason: "no separator (expected Header:value, name==value, name=value, name:=json or field@file)")
    }

    private static func matches(_ separator: String, in characters: [Character], at index: Int) -> Bool {
        let pattern = Array(separator)
        guard index + pattern.count <= characters.count else { return false }
        return Array(characters[index..<(index + pattern.count)]) == pattern
    }

    private static func make(name: String, separator: String, value: String,
                             item: String) throws(RequestItemError) -> RequestItem {
        guard !name.isEmpty else { throw RequestItemError(item: item, reason: "the name before \"\(separator)\" is empty") }
        switch separator {
        case ":":
            guard name.unicodeScalars.allSatisfy(isTokenCharacter) else {
                throw RequestItemError(item: item, reason: "\(name.debugDescription) is not a valid header name")
            }
            return .header(name: name, value: value.trimmingLeadingSpaces())
        case "==": return .query(name: name, value: value)
        case "=": return .field(name: name, value: value)
        case ":=":
            guard JSONText.isValid(value) else {
                throw RequestItemError(item: item, reason: "the value after \":=\" is not valid JSON")
            }
            return .jsonField(name: name, json: value)
        case "@": return .file(name: name, path: value)
        case "=@": return .fieldFromFile(name: name, path: value)
        default: return .jsonFromFile(name: name, path: value)
        }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        default: return "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
        }
    }
}

/// A request item that cannot be parsed: a usage error.
public struct RequestItemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The item as given.
    public let item: String
    /// Why it was refused.
    public let reason: String

    /// Creates the error.
    public init(item: String, reason: String) {
        self.item = item
        self.reason = reason
    }

    /// `invalid item "…": reason`.
    public var description: String { "invalid item \(item.debugDescription): \(reason)" }
}

extension String {
    func trimmingLeadingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }))
    }
}
