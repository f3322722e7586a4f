import Foundation

/// Small helpers for writing JSON text by hand, keeping the user's order and number spelling.
public enum JSONText {
    /// Whether `text` is one valid JSON value (objects, arrays and bare scalars alike).
    public static func isValid(_ text: String) -> Bool {
        isValid(Data(text.utf8))
    }

    /// Whether `data` is one valid JSON value.
    public static func isValid(_ data: Data) -> Bool {
        guard !data.isEmpty else { return false }
        return (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
    }

    /// `string` as a JSON string literal, quotes included; non-ASCII characters are kept as UTF-8.
    public static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// An object from `(name, raw JSON value)` pairs in order; a repeated name keeps its first
    /// position and its last value. Written as httpie does: `{"a": 1, "b": "x"}`.
    public static func object(_ members: [(name: String, json: String)]) -> String {
        var order: [String] = []
        var values: [String: String] = [:]
        for member in members {
            if values[member.name] == nil { order.append(member.name) }
            values[member.name] = member.json.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let body = order.map { "\(quoted($0)): \(values[$0] ?? "null")" }.joined(separator: ", ")
        return "{" + body + "}"
    }
}
