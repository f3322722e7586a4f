import Foundation

/// `websocket`: the WebSocket frame decoder and message assembler fed server bytes, split at a
/// fuzzed point, with or without permessage-deflate; and the UTF-8 validator.
///
/// Invariants: decoding in two pieces gives the same frames and the same violation as in one; a
/// frame's payload never exceeds the limit; a text message is valid UTF-8 by Swift's own
/// validation; the validator agrees with `String(validating:)`; nothing traps.
enum WebSocketTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        let limit = 1 + Int(input.uint32() % 70_000)
        let deflate = input.bool()
        let split = input.choose(256)
        let bytes = input.remaining
        FuzzCheck.require(WebSocketUTF8.isValid(bytes[...]) == (String(validating: bytes, as: UTF8.self) != nil),
                          "UTF-8 validator disagrees with String(validating:)")
        let whole = decode([bytes[...]], limit: limit, deflate: deflate)
        let cut = min(split, bytes.count)
        let pieces = decode([bytes[..<cut], bytes[cut...]], limit: limit, deflate: deflate)
        FuzzCheck.require(whole == pieces, "split at \(cut) changed the result")
    }

    private struct Outcome: Equatable {
        var incoming: [WebSocketIncoming] = []
        var violation: WebSocketViolation?
    }

    private static func decode(_ pieces: [ArraySlice<UInt8>], limit: Int, deflate: Bool) -> Outcome {
        var decoder = WebSocketFrameDecoder(maximumPayload: limit, allowsRSV1: deflate)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: limit,
                                                  inflater: deflate ? WebSocketInflater(resetsEachMessage: false) : nil)
        var outcome = Outcome()
        do {
            for piece in pieces {
                decoder.append(piece)
                while let frame = try decoder.next() {
                    FuzzCheck.require(frame.payload.count <= limit, "a payload over the limit")
                    if let incoming = try assembler.consume(frame) {
                        if case let .message(.text(text)) = incoming {
                            FuzzCheck.require(String(validating: Array(text.utf8), as: UTF8.self) != nil, "invalid text")
                        }
                        outcome.incoming.append(incoming)
                    }
                }
            }
        } catch {
            outcome.violation = error
        }
        return outcome
    }
}
