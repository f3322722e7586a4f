import CurlfireCLIKit
import Foundation
import XCTest

/// Re-indenting and colouring JSON without reordering or rewriting it.
final class JSONStylerTests: XCTestCase {
    private let sample = Data(#"{"b":1.0,"a":[true,null,"x:y"],"e":{},"s":"q\"}"}"#.utf8)

    func testThatFormattingIndentsAndKeepsOrderAndNumbers() {
        let text = JSONStyler(indent: true, colors: false).style(sample)
        XCTAssertEqual(text, """
            {
                "b": 1.0,
                "a": [
                    true,
                    null,
                    "x:y"
                ],
                "e": {},
                "s": "q\\"}"
            }

            """)
    }

    func testThatColoursMarkKeysStringsNumbersAndLiterals() throws {
        let text = try XCTUnwrap(JSONStyler(indent: false, colors: true).style(Data(#"{"k": "v", "n": -1e3, "t": false}"#.utf8)))
        let key = ANSIStyle.key.wrap(#""k""#), string = ANSIStyle.string.wrap(#""v""#)
        let number = ANSIStyle.number.wrap("-1e3"), literal = ANSIStyle.literal.wrap("false")
        XCTAssertEqual(text, "{\(key): \(string), \(ANSIStyle.key.wrap(#""n""#)): \(number), \(ANSIStyle.key.wrap(#""t""#)): \(literal)}")
        XCTAssertEqual(ANSIStyle.key.wrap("x"), "\u{1B}[1;34mx\u{1B}[0m")
    }

    func testThatColoursOnlyKeepTheOriginalWhitespace() throws {
        let original = "[ 1 ,\n  \"a\" ]"
        let text = try XCTUnwrap(JSONStyler(indent: false, colors: true).style(Data(original.utf8)))
        let stripped = text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        XCTAssertEqual(stripped, original)
    }

    func testThatNonJSONIsLeftAlone() {
        XCTAssertNil(JSONStyler(indent: true, colors: true).style(Data("<html>".utf8)))
        XCTAssertNil(JSONStyler(indent: true, colors: true).style(Data()))
        XCTAssertNil(JSONStyler(indent: true, colors: true).style(Data("{\"a\":".utf8)))
    }

    func testThatAFormattedDocumentParsesToTheSameValue() throws {
        let text = try XCTUnwrap(JSONStyler(indent: true, colors: false).style(sample))
        let before = try JSONSerialization.jsonObject(with: sample) as? NSDictionary
        let after = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        XCTAssertEqual(before, after)
    }
}

/// Which bodies are shown as JSON, and which are binary.
final class BodyKindTests: XCTestCase {
    func testThatJSONIsRecognisedByTypeOrShape() {
        XCTAssertTrue(BodyKind.looksLikeJSON(Data("x".utf8), contentType: "application/problem+json"))
        XCTAssertTrue(BodyKind.looksLikeJSON(Data(" \n[1]".utf8), contentType: "text/plain"))
        XCTAssertFalse(BodyKind.looksLikeJSON(Data("<p>{</p>".utf8), contentType: "text/html"))
    }

    func testThatBinaryMeansNULOrInvalidUTF8() {
        XCTAssertFalse(BodyKind.isBinary(Data("héllo\n".utf8)))
        XCTAssertTrue(BodyKind.isBinary(Data([0x61, 0x00, 0x62])))
        XCTAssertTrue(BodyKind.isBinary(Data([0xF3, 0xC4, 0x23])))
        XCTAssertFalse(BodyKind.isBinary(Data()))
    }
}
