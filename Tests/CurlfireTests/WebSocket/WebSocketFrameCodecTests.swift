@testable import Curlfire
import Foundation
import XCTest

/// The frame codec without a network: client encoding (masking, the three length forms) and the
/// decoder's rules for server frames (Autobahn categories: framing, reserved bits, opcodes, limits).
final class WebSocketFrameCodecTests: XCTestCase {
    private let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)

    /// A server frame (unmasked) with the given header bits.
    private func serverFrame(_ b0: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes = [b0]
        if payload.count < 126 {
            bytes.append(UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        return bytes + payload
    }

    private func decode(_ bytes: [UInt8], maximum: Int = 1 << 20, rsv1: Bool = false) throws(WebSocketViolation) -> WebSocketFrame? {
        var decoder = WebSocketFrameDecoder(maximumPayload: maximum, allowsRSV1: rsv1)
        decoder.append(bytes)
        return try decoder.next()
    }

    private func assertViolation(_ bytes: [UInt8], code: WebSocketCloseCode, maximum: Int = 1 << 20,
                                 file: StaticString = #filePath, line: UInt = #line) {
        do {
            let frame = try decode(bytes, maximum: maximum)
            XCTFail("decoded \(String(describing: frame))", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, code, error.detail, file: file, line: line)
        }
    }

    // MARK: - Framing: encoding

    func testFraming_rfcExampleMaskedHello() {
        // RFC 6455 section 5.7: a masked "Hello" with key 37 fa 21 3d.
        var output: [UInt8] = []
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), maskingKey: key, into: &output)
        XCTAssertEqual(output, [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    func testFraming_lengthFormsAndMaskBitAlwaysSet() {
        for (size, headerLength) in [(0, 6), (125, 6), (126, 8), (65_535, 8), (65_536, 14)] {
            var output: [UInt8] = []
            let payload = [UInt8](repeating: 0xAA, count: size)
            WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload), maskingKey: key, into: &output)
            XCTAssertEqual(output.count, size + headerLength, "size \(size)")
            XCTAssertEqual(output[1] & 0x80, 0x80, "masked")
            // Unmasking gives the payload back.
            let unmasked = output[headerLength...].enumerated().map { $1 ^ [key.0, key.1, key.2, key.3][$0 & 3] }
            XCTAssertEqual(unmasked, payload)
        }
    }

    // MARK: - Framing: decoding

    func testFraming_decodesAcrossArbitrarySplits() throws {
        let bytes = serverFrame(0x81, Array("Hello".utf8)) + serverFrame(0x82, [UInt8](repeating: 1, count: 300))
        for split in 0...bytes.count {
            var decoder = WebSocketFrameDecoder(maximumPayload: 1 << 20)
            var frames: [WebSocketFrame] = []
            decoder.append(bytes[..<split])
            while let frame = try decoder.next() { frames.append(frame) }
            decoder.append(bytes[split...])
            while let frame = try decoder.next() { frames.append(frame) }
            XCTAssertEqual(frames.map(\.opcode), [.text, .binary], "split at \(split)")
            XCTAssertEqual(frames.last?.payload.count, 300)
        }
    }

    func testFraming_maskedServerFrameIs1002() {
        assertViolation([0x81, 0x82, 1, 2, 3, 4, 5, 6], code: .protocolError)
    }

    func testFraming_nonMinimalLengthsAre1002() {
        assertViolation([0x82, 126, 0, 5] + [UInt8](repeating: 0, count: 5), code: .protocolError)
        assertViolation([0x82, 127, 0, 0, 0, 0, 0, 0, 0, 5] + [UInt8](repeating: 0, count: 5), code: .protocolError)
        assertViolation([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], code: .protocolError)
    }

    func testFraming_controlFrameOver125OrFragmentedIs1002() {
        assertViolation(serverFrame(0x89, [UInt8](repeating: 0, count: 126)), code: .protocolError)
        assertViolation(serverFrame(0x09, [1]), code: .protocolError)
    }

    // MARK: - Reserved bits and opcodes

    func testReservedBits_rsv2AndRsv3AlwaysAnd1WithoutExtensionAre1002() throws {
        assertViolation(serverFrame(0xA1, [1]), code: .protocolError) // RSV2
        assertViolation(serverFrame(0x91, [1]), code: .protocolError) // RSV3
        assertViolation(serverFrame(0xC1, [1]), code: .protocolError) // RSV1
        XCTAssertEqual(try decode(serverFrame(0xC1, [1]), rsv1: true)?.rsv1, true)
        do {
            _ = try decode(serverFrame(0xC9, [1]), rsv1: true)
            XCTFail("RSV1 on a control frame")
        } catch { XCTAssertEqual(error.code, .protocolError) }
    }

    func testOpcodes_everyReservedOpcodeIs1002() {
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            assertViolation(serverFrame(0x80 | opcode, []), code: .protocolError)
        }
    }

    // MARK: - Limits

    func testLimits_framePayloadOverMaximumIs1009BeforeItArrives() {
        // Only the header: the decoder refuses without waiting for (or buffering) the payload.
        assertViolation([0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0], code: .messageTooBig, maximum: 1 << 20)
    }

    // MARK: - Random input

    /// Random server bytes (a fixed-seed generator): decoding whole or split in two gives the same
    /// frames or the same violation, and nothing traps. `make fuzz` runs the same check unbounded.
    func testFraming_randomBytesDecodeTheSameWholeOrSplit() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        func decodeAll(_ pieces: [ArraySlice<UInt8>]) -> ([WebSocketFrame], WebSocketViolation?) {
            var decoder = WebSocketFrameDecoder(maximumPayload: 300)
            var frames: [WebSocketFrame] = []
            do {
                for piece in pieces {
                    decoder.append(piece)
                    while let frame = try decoder.next() { frames.append(frame) }
                }
                return (frames, nil)
            } catch {
                return (frames, error)
            }
        }
        for _ in 0..<2_000 {
            // Biased towards valid headers: unmasked, FIN, known opcodes, short lengths.
            var bytes: [UInt8] = []
            for _ in 0..<Int(next() % 6) {
                let opcode: [UInt8] = [0x81, 0x82, 0x89, 0x8A, 0x01, 0x80, 0x88]
                bytes.append(next() % 8 == 0 ? next() : opcode[Int(next()) % opcode.count])
                let length = next() % 8 == 0 ? next() : next() % 20
                bytes.append(length)
                for _ in 0..<Int(length % 130) { bytes.append(next()) }
            }
            let cut = bytes.isEmpty ? 0 : Int(next()) % bytes.count
            let whole = decodeAll([bytes[...]])
            let split = decodeAll([bytes[..<cut], bytes[cut...]])
            XCTAssertEqual(whole.0, split.0)
            XCTAssertEqual(whole.1, split.1)
        }
    }
}
