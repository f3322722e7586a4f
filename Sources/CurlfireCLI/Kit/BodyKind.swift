import Foundation

/// What kind of body a response holds, to decide how to show it on a terminal.
public enum BodyKind {
    /// JSON by content type (`application/json`, `…+json`), or a body that starts like an object or array.
    public static func looksLikeJSON(_ body: Data, contentType: String?) -> Bool {
        if let contentType, contentType.lowercased().contains("json") { return true }
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Whether the body is not text: it holds a NUL byte or is not valid UTF-8.
    public static func isBinary(_ body: Data) -> Bool {
        body.contains(0) || String(validating: body, as: UTF8.self) == nil
    }
}
