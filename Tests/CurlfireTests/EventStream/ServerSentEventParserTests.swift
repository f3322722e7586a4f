@testable import Curlfire
import XCTest

/// The WHATWG HTML event stream interpretation, from the standard's own examples (section
/// "Server-sent events", "Interpreting an event stream" and "Authoring notes"), each also fed
/// one byte at a time and split at every position.
final class ServerSentEventParserTests: XCTestCase {
    private typealias Event = ServerSentEvent

    /// The events of `text` parsed whole, byte by byte, and in two pieces at every split point:
    /// all must agree.
    private func parse(_ bytes: [UInt8], limit: Int = 1 << 20, file: StaticString = #filePath,
                       line: UInt = #line) throws -> [Event] {
        var whole = ServerSentEventParser(maximumEventSize: limit)
        let expected = try whole.parse(Data(bytes))
        var single = ServerSentEventParser(maximumEventSize: limit)
        var bytewise: [Event] = []
        for byte in bytes { bytewise += try single.parse(Data([byte])) }
        XCTAssertEqual(bytewise, expected, "byte by byte", file: file, line: line)
        for cut in 0...bytes.count {
            var split = ServerSentEventParser(maximumEventSize: limit)
            let events = try split.parse(Data(bytes[..<cut])) + split.parse(Data(bytes[cut...]))
            XCTAssertEqual(events, expected, "split at \(cut)", file: file, line: line)
        }
        return expected
    }

    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [Event] {
        try parse(Array(text.utf8), file: file, line: line)
    }

    func testThatTheStandardsStockTickerExampleJoinsDataLines() throws {
        XCTAssertEqual(try parse("data: YHOO\ndata: +2\ndata: 10\n\n"), [Event(data: "YHOO\n+2\n10")])
    }

    func testThatTheStandardsFourBlocksExampleCarriesTheIDAndDiscardsTheLastBlock() throws {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
        XCTAssertEqual(try parse(stream), [Event(id: "1", data: "first event"), Event(id: nil, data: "second event")],
                       "an empty id resets the last event ID; the third block has no blank line and is discarded")
    }

    func testThatTheStandardsEmptyDataExampleDispatchesEmptyAndNewlineData() throws {
        XCTAssertEqual(try parse("data\n\ndata\ndata\n\ndata:"), [Event(data: ""), Event(data: "\n")])
    }

    func testThatTheStandardsSpaceExampleGivesIdenticalEvents() throws {
        XCTAssertEqual(try parse("data:test\n\ndata: test\n\n"), [Event(data: "test"), Event(data: "test")])
    }

    func testThatTheStandardsEventTypeExampleNamesEachEvent() throws {
        let stream = "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n"
        XCTAssertEqual(try parse(stream), [Event(event: "add", data: "73857293"), Event(event: "remove", data: "2153"),
                                           Event(event: "add", data: "113411")])
    }

    func testThatTheStandardsMultiLineExampleKeepsItsLines() throws {
        let stream = "data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\n"
            + "data: This is the third message.\n\n"
        XCTAssertEqual(try parse(stream).map(\.data), ["This is the first message.",
                                                       "This is the second message, it\nhas two lines.",
                                                       "This is the third message."])
    }

    func testThatCRAndCRLFEndLinesLikeLF() throws {
        XCTAssertEqual(try parse("data: a\r\rdata: b\r\n\r\ndata: c\n\r"), [Event(data: "a"), Event(data: "b"), Event(data: "c")])
        XCTAssertEqual(try parse("data: a\r\n\ndata: b\n\r\n"), [Event(data: "a"), Event(data: "b")],
                       "CR LF is one line end; LF after it starts a blank line")
    }

    func testThatOneLeadingBOMIsDroppedAndASecondIsData() throws {
        XCTAssertEqual(try parse([0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8)), [Event(data: "x")])
        XCTAssertEqual(try parse([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8)), [],
                       "the second BOM is part of the field name, which is then unknown")
        XCTAssertEqual(try parse([0xEF, 0xBB] + Array("\ndata: y\n\n".utf8)), [Event(data: "y")],
                       "a partial BOM is an unknown field")
    }

    func testThatCommentsAndUnknownFieldsAreIgnored() throws {
        XCTAssertEqual(try parse(":ping\n\nfoo: bar\ndata: d\n: c\n\n"), [Event(data: "d")])
    }

    func testThatAnIDWithNULIsIgnoredAndIDsCarryOver() throws {
        XCTAssertEqual(try parse("id: 7\ndata: a\n\nid: 8\u{0}9\ndata: b\n\ndata: c\n\n"),
                       [Event(id: "7", data: "a"), Event(id: "7", data: "b"), Event(id: "7", data: "c")])
    }

    func testThatRetryTakesDigitsOnly() throws {
        var parser = ServerSentEventParser(maximumEventSize: 1024)
        XCTAssertEqual(try parser.parse(Data("retry: 1500\ndata: a\n\n".utf8)), [Event(data: "a", retry: 1500)])
        XCTAssertEqual(parser.reconnectionTime, 1500)
        for ignored in ["retry: 15a\n", "retry:\n", "retry: -1\n", "retry: 1.5\n", "retry:  2\n"] {
            _ = try parser.parse(Data(ignored.utf8))
            XCTAssertEqual(parser.reconnectionTime, 1500, ignored)
        }
        XCTAssertEqual(try parser.parse(Data("retry:99999999999999999999999\n\n".utf8)), [],
                       "retry without data dispatches nothing")
        XCTAssertEqual(parser.reconnectionTime, Int.max, "too many digits saturate")
    }

    func testThatAnEmptyDataBufferDispatchesNothingAndResetsTheType() throws {
        XCTAssertEqual(try parse("event: ping\n\ndata: x\n\n"), [Event(data: "x")])
    }

    func testThatInvalidUTF8BecomesReplacementCharacters() throws {
        XCTAssertEqual(try parse(Array("data: a".utf8) + [0xFF, 0xE2, 0x82] + Array("\n\n".utf8)),
                       [Event(data: "a\u{FFFD}\u{FFFD}")])
    }

    func testThatFieldsSplitOnCodePointsNotGraphemes() throws {
        // Found by the fuzz target's first model: ":" or " " followed by a combining mark is one
        // Character in Swift, but the standard splits code points.
        XCTAssertEqual(try parse("data:\u{06D6}\n\r"), [Event(data: "\u{06D6}")])
        XCTAssertEqual(try parse("data: \u{0301}x\n\n"), [Event(data: "\u{0301}x")])
    }

    func testThatAnEventPastTheLimitThrowsATypedError() throws {
        var parser = ServerSentEventParser(maximumEventSize: 16)
        XCTAssertEqual(try parser.parse(Data("data: 0123456789\n\n".utf8)).map(\.data), ["0123456789"])
        XCTAssertThrowsError(try parser.parse(Data("data: 0123456789\ndata: x".utf8))) { error in
            guard case .eventStreamFailed(.eventTooLarge(16))? = error as? CurlfireError else {
                return XCTFail("\(error)")
            }
        }
        var line = ServerSentEventParser(maximumEventSize: 16)
        XCTAssertThrowsError(try line.parse(Data(repeating: 0x61, count: 17)), "one unfinished line past the limit")
    }

    func testThatANewConnectionKeepsTheLastEventIDAndDropsThePartialEvent() throws {
        var parser = ServerSentEventParser(maximumEventSize: 1024)
        _ = try parser.parse(Data("id: 41\ndata: a\n\ndata: half".utf8))
        parser.startConnection()
        XCTAssertEqual(parser.lastEventID, "41")
        XCTAssertEqual(try parser.parse(Data([0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8))), [Event(id: "41", data: "b")],
                       "the new stream's BOM is dropped and the half event is gone")
    }
}
