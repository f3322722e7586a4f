import Foundation

/// Invariant checks: a broken invariant prints what was expected and aborts, so libFuzzer records
/// the input as a crash.
enum FuzzCheck {
    static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                        file: StaticString = #fileID, line: UInt = #line) {
        if !condition() { fail(message(), file: file, line: line) }
    }

    static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FileHandle.standardError.write(Data("FUZZ INVARIANT BROKEN at \(file):\(line): \(message)\n".utf8))
        abort()
    }

    /// Whether every byte is printable ASCII (what a query or form body may hold once escaped).
    static func isPrintableASCII(_ text: some Collection<UInt8>) -> Bool {
        text.allSatisfy { $0 >= 0x21 && $0 < 0x7F }
    }

    /// The `key=value` pairs of an escaped form, decoded; `nil` when a `%` escape is malformed.
    static func formPairs(_ form: String, plusForSpace: Bool = false) -> [(String, String)]? {
        guard !form.isEmpty else { return [] }
        var pairs: [(String, String)] = []
        for item in form.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                let text = plusForSpace ? part.replacingOccurrences(of: "+", with: " ") : String(part)
                return percentDecoded(text)
            }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Percent-decoding by bytes (Foundation's `removingPercentEncoding` refuses `%00`).
    static func percentDecoded(_ text: String) -> String? {
        var output: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { output.append(byte); continue }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else { return nil }
            output.append(high << 4 | low)
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
