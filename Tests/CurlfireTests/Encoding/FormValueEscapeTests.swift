@testable import Curlfire
import XCTest

/// `FormValueFormatting.escape`: a string that needs no escape comes back as it is; every other is
/// written byte by byte (upper-case hex), with `+` for a space only when asked.
final class FormValueEscapeTests: XCTestCase {
    func testThatEscapingSpellsEveryByteAsBefore() {
        let table: [(String, Bool, String)] = [
            ("", false, ""),
            ("plain-._~/?", false, "plain-._~/?"),
            ("a b", false, "a%20b"),
            ("a b", true, "a+b"),
            ("a+b c", true, "a%2Bb+c"),
            ("nospace", true, "nospace"),
            ("ü€😀", false, "%C3%BC%E2%82%AC%F0%9F%98%80"),
            ("\u{0}\n%", false, "%00%0A%25"),
            (String(repeating: "long value with spaces ", count: 4), false,
             String(repeating: "long%20value%20with%20spaces%20", count: 4)),
        ]
        for (input, plusForSpace, expected) in table {
            XCTAssertEqual(FormValueFormatting.escape(input, plusForSpace: plusForSpace), expected,
                           "\(input) plusForSpace: \(plusForSpace)")
        }
    }
}
