import Foundation

/// What a decoded frame means to the connection.
enum WebSocketIncoming: Sendable, Equatable {
    /// A whole message (fragments joined, inflated, UTF-8 checked).
    case message(WebSocketMessage)
    /// A ping with its payload (answered with a pong of the same payload).
    case ping([UInt8])
    /// A pong with its payload.
    case pong([UInt8])
    /// A close frame: its code (`nil` when it had none) and reason.
    case close(code: WebSocketCloseCode?, reason: String)
}

/// Joins data frames into messages and interprets control frames (RFC 6455 sections 5.4, 5.5,
/// 7.4): a continuation with no message started, or a new data frame inside a fragmented message,
/// is a protocol error (1002); control frames may come between fragments; a message over the limit
/// fails with 1009 as soon as its fragments pass it; text that is not UTF-8 fails with 1007; a close
/// frame's code must be one that may be sent and its reason UTF-8. Pure: no I/O.
struct WebSocketMessageAssembler {
    /// The largest message accepted (after inflation).
    let maximumMessageSize: Int
    /// Inflates a compressed message (permessage-deflate), `nil` when not negotiated.
    var inflater: WebSocketInflater?

    private var fragments: [UInt8] = []
    private var fragmentOpcode: WebSocketOpcode?
    private var fragmentCompressed = false

    init(maximumMessageSize: Int, inflater: WebSocketInflater? = nil) {
        self.maximumMessageSize = maximumMessageSize
        self.inflater = inflater
    }

    /// Whether a fragmented message is being received.
    var isInsideMessage: Bool { fragmentOpcode != nil }

    /// Interprets one frame; `nil` when it was a fragment of a message not yet complete.
    mutating func consume(_ frame: WebSocketFrame) throws(WebSocketViolation) -> WebSocketIncoming? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.parseClose(frame.payload)
        case .text, .binary:
            if fragmentOpcode != nil { throw .protocolError("a new data frame inside a fragmented message") }
            if frame.rsv1, inflater == nil { throw .protocolError("RSV1 set without permessage-deflate") }
            if frame.fin {
                return try finish(opcode: frame.opcode, payload: frame.payload, compressed: frame.rsv1)
            }
            try checkSize(frame.payload.count)
            fragmentOpcode = frame.opcode
            fragmentCompressed = frame.rsv1
            fragments = frame.payload
            return nil
        case .continuation:
            guard let opcode = fragmentOpcode else { throw .protocolError("a continuation frame with no message started") }
            if frame.rsv1 { throw .protocolError("RSV1 set on a continuation frame") }
            try checkSize(fragments.count + frame.payload.count)
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            let payload = fragments
            let compressed = fragmentCompressed
            fragments = []
            fragmentOpcode = nil
            fragmentCompressed = false
            return try finish(opcode: opcode, payload: payload, compressed: compressed)
        }
    }

    /// Fails with 1009 past the limit. A compressed message is checked on the wire here and again
    /// while it inflates, so a peer cannot make us hold more than the limit either way.
    private func checkSize(_ count: Int) throws(WebSocketViolation) {
        if count > maximumMessageSize {
            throw WebSocketViolation(code: .messageTooBig, detail: "a message of more than \(maximumMessageSize) bytes")
        }
    }

    private mutating func finish(opcode: WebSocketOpcode, payload: [UInt8], compressed: Bool)
        throws(WebSocketViolation) -> WebSocketIncoming {
        try checkSize(payload.count)
        var bytes = payload
        if compressed, let inflater {
            bytes = try inflater.inflate(payload, limit: maximumMessageSize)
        }
        if opcode == .text {
            guard let text = WebSocketUTF8.string(bytes) else {
                throw WebSocketViolation(code: .invalidFramePayloadData, detail: "a text message that is not UTF-8")
            }
            return .message(.text(text))
        }
        return .message(.binary(Data(bytes)))
    }

    /// A close frame's payload: empty, or a 2-byte code that may be sent plus a UTF-8 reason.
    static func parseClose(_ payload: [UInt8]) throws(WebSocketViolation) -> WebSocketIncoming {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        if payload.count == 1 { throw .protocolError("a close frame with a 1-byte payload") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        if !code.isSendable { throw .protocolError("close code \(code.rawValue) may not be sent") }
        guard let reason = WebSocketUTF8.string(Array(payload[2...])) else {
            throw WebSocketViolation(code: .invalidFramePayloadData, detail: "a close reason that is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}

/// UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
enum WebSocketUTF8 {
    /// The string, or `nil` when `bytes` is not valid UTF-8.
    static func string(_ bytes: [UInt8]) -> String? {
        guard isValid(bytes[...]) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` is valid UTF-8.
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            let b0 = bytes[index]
            if b0 < 0x80 { index += 1; continue }
            let count: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: count = 1
            case 0xE0: count = 2; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: count = 2
            case 0xED: count = 2; upper = 0x9F
            case 0xF0: count = 3; lower = 0x90
            case 0xF1...0xF3: count = 3
            case 0xF4: count = 3; upper = 0x8F
            default: return false
            }
            guard end - index > count else { return false }
            let b1 = bytes[index + 1]
            if b1 < lower || b1 > upper { return false }
            for offset in stride(from: 2, through: count, by: 1) where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += count + 1
        }
        return true
    }
}
