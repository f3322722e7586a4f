import Foundation
import FoundationNetworking

/// Shared text rules of the URL-encoded form: percent-escaping, number and boolean spelling.
///
/// Both ``URLEncoding`` (for `[String: Any]`) and ``URLEncodedFormEncoder`` (for `Encodable`) use
/// these, so the two spell the same value the same way.
enum FormValueFormatting {
    // MARK: - Escaping

    /// Percent-escapes `string` for a query component (RFC 3986 §3.4).
    ///
    /// Left as they are: ASCII letters and digits, `-`, `.`, `_`, `~`, `/` and `?`. Every other byte of
    /// the string's UTF-8 form becomes `%XX` (upper-case hex): the general delimiters `:#[]@`, the
    /// sub-delimiters `!$&'()*+,;=`, `%` itself, space (`%20`), controls and all non-ASCII.
    /// With `plusForSpace`, a space becomes `+` instead (a literal `+` is still `%2B`).
    static func escape(_ string: String, plusForSpace: Bool = false) -> String {
        // Most keys and values need no escape: the string itself, no copy.
        var length = 0
        for byte in string.utf8 { length += isAllowed(byte) || (byte == 0x20 && plusForSpace) ? 1 : 3 }
        if length == string.utf8.count, !(plusForSpace && string.utf8.contains(0x20)) { return string }
        // Written straight into the result's storage (an intermediate byte array was one more allocation).
        return String(unsafeUninitializedCapacity: length) { output in
            var index = 0
            for byte in string.utf8 {
                if isAllowed(byte) {
                    output[index] = byte
                    index += 1
                } else if byte == 0x20 && plusForSpace {
                    output[index] = UInt8(ascii: "+")
                    index += 1
                } else {
                    output[index] = UInt8(ascii: "%")
                    output[index + 1] = hexDigit(byte >> 4)
                    output[index + 2] = hexDigit(byte & 0x0F)
                    index += 3
                }
            }
            return index
        }
    }

    /// The upper-case hex digit of a nibble (0–15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    // MARK: - Numbers

    /// Spells a `Double` for a form, or returns `nil` when it is NaN or infinite.
    ///
    /// An integral value whose magnitude is below 10²¹ is written in plain digits, exactly the integer
    /// the `Double` holds (`1.0` → `1`, `-0.0` → `0`, `1e20` → `100000000000000000000`). Any other finite
    /// value uses Swift's shortest round-tripping spelling (`1.5` → `1.5`, `0.1` → `0.1`,
    /// `1e-7` → `1e-07`, `1e21` → `1e+21`).
    static func string(for double: Double) -> String? {
        guard double.isFinite else { return nil }
        if double.rounded(.towardZero) == double, abs(double) < 1e21, let integer = Int128(exactly: double) {
            return String(integer)
        }
        return double.description
    }

    /// Spells a `Float` like the `Double` overload, using `Float`'s own shortest spelling for
    /// non-integral values (`Float(0.1)` → `0.1`, not `0.10000000149011612`).
    static func string(for float: Float) -> String? {
        guard float.isFinite else { return nil }
        if float.rounded(.towardZero) == float { return string(for: Double(float)) }
        return float.description
    }

    // MARK: - Booleans and NSNumber

    /// The class Foundation uses for boxed booleans (`__NSCFBoolean` on Linux and Apple platforms).
    ///
    /// `NSNumber(value: 1) as Any is Bool` is `true` on Linux, so a cast cannot tell a number from a
    /// boolean; the dynamic class can.
    private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// What a value of unknown type is, decided by its dynamic type rather than by bridging casts.
    enum Scalar {
        /// A real boolean: a Swift `Bool` or a boxed `NSNumber` boolean.
        case bool(Bool)
        /// A `Double` (Swift or boxed).
        case double(Double)
        /// A Swift `Float`.
        case float(Float)
        /// Any other number, already spelled (integers, `Decimal`, `NSDecimalNumber`).
        case number(String)
        /// Not a boolean or a number.
        case other
    }

    /// Classifies `value` as a boolean, a floating-point number, another number, or neither.
    ///
    /// The number `1` (`Int`, `Double`, `NSNumber(value: 1)`) is never classified as a boolean, and
    /// `true` (`Bool`, `NSNumber(value: true)`) never as a number.
    static func scalar(_ value: Any) -> Scalar {
        let dynamicType = type(of: value)
        if dynamicType == Bool.self, let bool = value as? Bool { return .bool(bool) }
        if dynamicType == Double.self, let double = value as? Double { return .double(double) }
        if dynamicType == Float.self, let float = value as? Float { return .float(float) }
        if dynamicType == Decimal.self, let decimal = value as? Decimal { return .number(decimal.description) }
        if dynamicType == CGFloat.self, let float = value as? CGFloat { return .double(Double(float)) }
        guard dynamicType is NSNumber.Type, let number = value as? NSNumber else {
            // Not a boxed number, so this cast cannot bridge: it matches Swift's own integer types only.
            if let integer = value as? any BinaryInteger { return .number("\(integer)") }
            return .other
        }
        if ObjectIdentifier(type(of: number)) == booleanNumberClass { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber { return .number(decimal.description) }
        switch String(cString: number.objCType) {
        case "d", "f": return .double(number.doubleValue)
        default: return .number(number.stringValue)
        }
    }
}
