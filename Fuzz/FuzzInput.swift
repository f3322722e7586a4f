/// Consumes fuzz bytes as typed choices; when the bytes run out every read returns zero / empty,
/// so every input is a valid program.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// All the bytes, whatever has been consumed.
    var all: [UInt8] { bytes }
    /// Whether every byte has been consumed.
    var isExhausted: Bool { position >= bytes.count }
    /// The bytes not consumed yet.
    var remaining: [UInt8] { position < bytes.count ? Array(bytes[position...]) : [] }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A value in `0..<bound` (bound > 0).
    mutating func choose(_ bound: Int) -> Int { Int(byte()) % bound }

    mutating func uint32() -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(byte()) }
        return value
    }

    mutating func uint64() -> UInt64 { UInt64(uint32()) << 32 | UInt64(uint32()) }

    /// Up to `maxLength` raw bytes, length-prefixed.
    mutating func data(maxLength: Int = 64) -> [UInt8] {
        let length = min(Int(byte()), maxLength)
        var out: [UInt8] = []
        out.reserveCapacity(length)
        for _ in 0..<length where !isExhausted { out.append(byte()) }
        return out
    }

    /// A string built from the bytes, biased towards the characters that break encoders: ASCII
    /// punctuation, CR/LF/NUL, quotes, percent signs, multi-byte scalars and invalid UTF-8 (repaired).
    mutating func string(maxLength: Int = 24) -> String {
        let length = min(Int(byte()) % (maxLength + 1), maxLength)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length where !isExhausted {
            let kind = byte()
            switch kind % 8 {
            case 0: scalars.append(Self.special[Int(byte()) % Self.special.count])
            case 1, 2, 3: scalars.append(Unicode.Scalar(byte() % 0x5F + 0x20)) // printable ASCII
            case 4: scalars.append(Unicode.Scalar(byte() & 0x1F)) // control
            case 5: if let scalar = Unicode.Scalar(UInt32(byte()) << 8 | UInt32(byte())) { scalars.append(scalar) }
            case 6: if let scalar = Unicode.Scalar(0x1_0000 + (uint32() % 0x10_0000)) { scalars.append(scalar) }
            default: scalars.append(Unicode.Scalar(byte() % 0x80 + 0x80))
            }
        }
        return String(scalars)
    }

    private static let special: [Unicode.Scalar] = [
        "\r", "\n", "\0", "\"", "'", "%", "&", "=", "[", "]", "+", " ", "?", "#", "/", ";", "\\",
        "\u{2028}", "\u{FEFF}", "\u{FFFD}", "é", "\u{301}", "😀", "\u{7F}", ":", ",", "*",
    ]
}
