import Foundation

/// Turns chunks of UTF-8 bytes into text without splitting a character across chunks: an
/// incomplete sequence at a chunk's end waits for the next chunk (a pure value, unit-tested).
struct UTF8ChunkDecoder: Sendable {
    private var carry = Data()

    /// The text of `chunk` (with what the previous chunk left), minus an incomplete trailing sequence.
    mutating func decode(_ chunk: Data) -> String {
        var bytes = carry
        bytes.append(chunk)
        let cut = Self.completePrefixLength(bytes)
        carry = bytes.subdata(in: bytes.startIndex + cut..<bytes.endIndex)
        return String(decoding: bytes.prefix(cut), as: UTF8.self)
    }

    /// What is left at the end (an incomplete sequence decodes as U+FFFD).
    mutating func finish() -> String {
        defer { carry = Data() }
        return String(decoding: carry, as: UTF8.self)
    }

    /// The length of `bytes` without a trailing sequence that a later byte could complete.
    static func completePrefixLength(_ bytes: Data) -> Int {
        let count = bytes.count
        var index = count - 1
        var continuation = 0
        while index >= 0, continuation < 3 {
            let byte = bytes[bytes.startIndex + index]
            if byte & 0xC0 != 0x80 {
                let expected = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return continuation + 1 < expected ? index : count
            }
            continuation += 1
            index -= 1
        }
        return count
    }
}

/// Splits chunks into lines (`\n`, with a trailing `\r` dropped), keeping a partial line for the
/// next chunk: newline-delimited JSON (a pure value, unit-tested).
struct LineSplitter: Sendable {
    private var carry = Data()

    /// The complete, non-blank lines `chunk` finishes.
    mutating func lines(_ chunk: Data) -> [Data] {
        carry.append(chunk)
        var lines: [Data] = []
        while let newline = carry.firstIndex(of: 0x0A) {
            lines.append(carry[carry.startIndex..<newline])
            carry = carry.subdata(in: carry.index(after: newline)..<carry.endIndex)
        }
        return lines.compactMap(Self.trimmed)
    }

    /// The last line when the stream did not end with a newline.
    mutating func finish() -> Data? {
        defer { carry = Data() }
        return Self.trimmed(carry)
    }

    private static func trimmed(_ line: Data) -> Data? {
        var line = Data(line)
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
        return line.contains(where: { $0 != 0x20 && $0 != 0x09 }) ? line : nil
    }
}
