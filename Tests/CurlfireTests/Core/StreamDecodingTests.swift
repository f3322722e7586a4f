@testable import Curlfire
import XCTest

/// Text and NDJSON line splitting of stream chunks.
final class StreamDecodingTests: XCTestCase {
    func testThatACharacterSplitAcrossChunksIsDecodedWhole() {
        var decoder = UTF8ChunkDecoder()
        let euro = Array("a€b".utf8) // 61 E2 82 AC 62
        XCTAssertEqual(decoder.decode(Data(euro[0..<2])), "a")
        XCTAssertEqual(decoder.decode(Data(euro[2..<3])), "")
        XCTAssertEqual(decoder.decode(Data(euro[3...])), "€b")
        XCTAssertEqual(decoder.finish(), "")
        XCTAssertEqual(decoder.decode(Data([0xF0, 0x9F])), "")
        XCTAssertEqual(decoder.finish(), "\u{FFFD}", "an unfinished character at the end is a replacement")
    }

    func testThatLinesAreSplitAcrossChunksAndBlankLinesDropped() {
        var splitter = LineSplitter()
        XCTAssertEqual(splitter.lines(Data("{\"a\":1}\n{\"a\"".utf8)).map { String(decoding: $0, as: UTF8.self) }, ["{\"a\":1}"])
        XCTAssertEqual(splitter.lines(Data(":2}\r\n\n  \n{\"a\":3}".utf8)).map { String(decoding: $0, as: UTF8.self) },
                       ["{\"a\":2}"])
        XCTAssertEqual(splitter.finish().map { String(decoding: $0, as: UTF8.self) }, "{\"a\":3}")
        XCTAssertNil(splitter.finish())
    }
}
