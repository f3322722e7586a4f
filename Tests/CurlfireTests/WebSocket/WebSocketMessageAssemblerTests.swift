@testable import Curlfire
import Foundation
import XCTest

/// Fragmentation, control frames, UTF-8, close payloads and limits, without a network
/// (Autobahn categories: fragmentation, UTF-8, close, limits, compression).
final class WebSocketMessageAssemblerTests: XCTestCase {
    private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> WebSocketFrame {
        WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: payload)
    }

    private func violation(_ body: () throws -> Void) -> WebSocketViolation? {
        do {
            try body()
            return nil
        } catch {
            return error as? WebSocketViolation
        }
    }

    // MARK: - Fragmentation

    func testFragmentation_fragmentsJoinWithControlFramesBetween() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1000)
        XCTAssertNil(try assembler.consume(frame(.text, Array("Hel".utf8), fin: false)))
        XCTAssertEqual(try assembler.consume(frame(.ping, [1])), .ping([1]))
        XCTAssertNil(try assembler.consume(frame(.continuation, Array("lo".utf8), fin: false)))
        XCTAssertEqual(try assembler.consume(frame(.pong, [2])), .pong([2]))
        XCTAssertEqual(try assembler.consume(frame(.continuation, Array(", world".utf8))), .message(.text("Hello, world")))
        XCTAssertFalse(assembler.isInsideMessage)
    }

    func testFragmentation_continuationFirstOrDataInsideMessageIs1002() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1000)
        XCTAssertEqual(violation { _ = try assembler.consume(frame(.continuation, [1])) }?.code, .protocolError)
        var inside = WebSocketMessageAssembler(maximumMessageSize: 1000)
        _ = try? inside.consume(frame(.binary, [1], fin: false))
        XCTAssertEqual(violation { _ = try inside.consume(frame(.binary, [2])) }?.code, .protocolError)
    }

    // MARK: - UTF-8

    func testUTF8_validatorMatchesRFC3629() {
        let valid: [[UInt8]] = [[], Array("κόσμε".utf8), [0xF4, 0x8F, 0xBF, 0xBF], [0xEF, 0xBF, 0xBF], [0x7F]]
        let invalid: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], // overlong 2-byte
            [0xE0, 0x80, 0x80], // overlong 3-byte
            [0xED, 0xA0, 0x80], // surrogate
            [0xF4, 0x90, 0x80, 0x80], // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], // invalid lead / lone continuation
            [0xE2, 0x82], // truncated
        ]
        for bytes in valid { XCTAssertTrue(WebSocketUTF8.isValid(bytes[...]), "\(bytes)") }
        for bytes in invalid { XCTAssertFalse(WebSocketUTF8.isValid(bytes[...]), "\(bytes)") }
    }

    func testUTF8_invalidTextMessageIs1007() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1000)
        XCTAssertEqual(violation { _ = try assembler.consume(frame(.text, [0xCE, 0xBA, 0xED, 0xA0, 0x80])) }?.code,
                       .invalidFramePayloadData)
    }

    func testUTF8_codePointSplitAcrossFragmentsIsValid() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1000)
        XCTAssertNil(try assembler.consume(frame(.text, [0xCE], fin: false)))
        XCTAssertEqual(try assembler.consume(frame(.continuation, [0xBA])), .message(.text("κ")))
    }

    // MARK: - Close

    func testClose_payloadRules() throws {
        XCTAssertEqual(try WebSocketMessageAssembler.parseClose([]), .close(code: nil, reason: ""))
        XCTAssertEqual(try WebSocketMessageAssembler.parseClose([0x03, 0xE8] + Array("bye".utf8)),
                       .close(code: .normalClosure, reason: "bye"))
        XCTAssertEqual(try WebSocketMessageAssembler.parseClose([0x0F, 0xA0]), .close(code: WebSocketCloseCode(rawValue: 4000), reason: ""))
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1100, 2999, 5000] {
            XCTAssertEqual(violation { _ = try WebSocketMessageAssembler.parseClose([UInt8(code >> 8), UInt8(code & 0xFF)]) }?.code,
                           .protocolError, "code \(code)")
        }
        XCTAssertEqual(violation { _ = try WebSocketMessageAssembler.parseClose([0x03]) }?.code, .protocolError)
        XCTAssertEqual(violation { _ = try WebSocketMessageAssembler.parseClose([0x03, 0xE8, 0xFF]) }?.code, .invalidFramePayloadData)
    }

    // MARK: - Limits

    func testLimits_fragmentsPassingMaximumAre1009() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 10)
        XCTAssertNil(try assembler.consume(frame(.binary, [UInt8](repeating: 0, count: 6), fin: false)))
        XCTAssertEqual(violation { _ = try assembler.consume(frame(.continuation, [UInt8](repeating: 0, count: 6), fin: false)) }?.code,
                       .messageTooBig)
    }

    // MARK: - Compression

    func testCompression_deflateThenInflateRoundTripsAcrossMessages() throws {
        let deflater = WebSocketDeflater(parameters: PerMessageDeflateParameters())
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 1 << 20, inflater: WebSocketInflater(resetsEachMessage: false))
        for index in 0..<3 {
            let text = String(repeating: "context takeover \(index) ", count: 500)
            let compressed = try XCTUnwrap(deflater.deflate(Array(text.utf8)))
            XCTAssertLessThan(compressed.count, text.utf8.count / 10)
            XCTAssertEqual(try assembler.consume(frame(.text, compressed, rsv1: true)), .message(.text(text)))
        }
    }

    func testCompression_rfc7692ExampleAndBombLimit() throws {
        // RFC 7692 section 7.2.3.1: "Hello" compressed.
        let inflater = WebSocketInflater(resetsEachMessage: true)
        XCTAssertEqual(try inflater.inflate([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], limit: 100), Array("Hello".utf8))
        // A small compressed message inflating past the limit is 1009, found while inflating.
        let bomb = try XCTUnwrap(WebSocketDeflater(parameters: PerMessageDeflateParameters()).deflate([UInt8](repeating: 0, count: 1 << 20)))
        XCTAssertLessThan(bomb.count, 10_000)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100_000, inflater: WebSocketInflater(resetsEachMessage: true))
        XCTAssertEqual(violation { _ = try assembler.consume(frame(.binary, bomb, rsv1: true)) }?.code, .messageTooBig)
        XCTAssertEqual(violation { _ = try WebSocketInflater(resetsEachMessage: true).inflate([0xFF, 0xFF, 0xFF], limit: 100) }?.code,
                       .invalidFramePayloadData)
    }

    func testCompression_negotiationParsing() throws {
        XCTAssertNil(try PerMessageDeflateParameters.negotiated(from: nil))
        let parsed = try XCTUnwrap(PerMessageDeflateParameters.negotiated(
            from: "permessage-deflate; server_no_context_takeover; client_max_window_bits=8"))
        XCTAssertTrue(parsed.serverNoContextTakeover)
        XCTAssertEqual(parsed.clientMaxWindowBits, 9)
        XCTAssertThrowsError(try PerMessageDeflateParameters.negotiated(from: "x-webkit-deflate-frame"))
        XCTAssertThrowsError(try PerMessageDeflateParameters.negotiated(from: "permessage-deflate; server_max_window_bits=16"))
        XCTAssertThrowsError(try PerMessageDeflateParameters.negotiated(from: "permessage-deflate; foo"))
    }
}
