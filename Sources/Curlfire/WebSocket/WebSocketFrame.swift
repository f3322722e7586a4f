import Foundation

/// A frame's opcode (RFC 6455 section 5.2).
enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Whether the opcode is a control frame's (close, ping, pong).
    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One decoded frame: its header bits and its payload, unmasked.
struct WebSocketFrame: Sendable, Equatable {
    var fin: Bool
    /// RSV1: set on the first frame of a compressed message (permessage-deflate).
    var rsv1: Bool
    var opcode: WebSocketOpcode
    var payload: [UInt8]

    init(fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }
}

/// A framing rule the peer broke, with the close code it calls for.
struct WebSocketViolation: Error, Equatable, Sendable {
    /// 1002, 1007 or 1009.
    var code: WebSocketCloseCode
    var detail: String
    /// Whether a compressed message did not inflate (1007, reported as `decompressionFailed`).
    var isDecompression = false

    static func protocolError(_ detail: String) -> WebSocketViolation { .init(code: .protocolError, detail: detail) }

    /// The error users see.
    func failure(limit: Int) -> CurlfireError.WebSocketFailureReason {
        switch code {
        case .invalidFramePayloadData: return isDecompression ? .decompressionFailed(detail) : .invalidUTF8
        case .messageTooBig: return .messageTooBig(limit: limit)
        default: return .protocolViolation(detail)
        }
    }
}

/// Encodes client frames: always masked (RFC 6455 section 5.3), with the masking key given (the
/// connection draws it from a strong random source per frame; tests pass a fixed one).
enum WebSocketFrameEncoder {
    /// Appends the frame's bytes to `output`.
    static func encode(_ frame: WebSocketFrame, maskingKey: (UInt8, UInt8, UInt8, UInt8), into output: inout [UInt8]) {
        encode(fin: frame.fin, rsv1: frame.rsv1, opcode: frame.opcode, payload: frame.payload[...],
               maskingKey: maskingKey, into: &output)
    }

    /// Appends a frame of `payload` to `output`.
    static func encode(fin: Bool, rsv1: Bool, opcode: WebSocketOpcode, payload: ArraySlice<UInt8>,
                       maskingKey: (UInt8, UInt8, UInt8, UInt8), into output: inout [UInt8]) {
        output.reserveCapacity(output.count + payload.count + 14)
        output.append((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue)
        let count = payload.count
        if count < 126 {
            output.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(0x80 | 126)
            output.append(UInt8(count >> 8))
            output.append(UInt8(count & 0xFF))
        } else {
            output.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
        }
        output.append(contentsOf: [maskingKey.0, maskingKey.1, maskingKey.2, maskingKey.3])
        let start = output.count
        output.append(contentsOf: payload)
        mask(&output[start...], key: maskingKey)
    }

    /// XORs `bytes` with the repeated key, eight bytes at a time.
    static func mask(_ bytes: inout ArraySlice<UInt8>, key: (UInt8, UInt8, UInt8, UInt8)) {
        let keyBytes = [key.0, key.1, key.2, key.3]
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { raw in
            for index in 0..<8 { raw[index] = keyBytes[index & 3] }
        }
        bytes.withUnsafeMutableBytes { raw in
            let count = raw.count
            var index = 0
            while index + 8 <= count {
                let value = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ word
                raw.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < count {
                raw[index] ^= keyBytes[index & 3]
                index += 1
            }
        }
    }
}

/// Decodes server frames from a byte stream, incrementally: ``append(_:)`` what arrived, then
/// ``next()`` until it returns `nil` (more bytes needed). Pure: no I/O, fuzzable.
///
/// Rejects, as RFC 6455 requires of a client: a masked frame (1002), RSV2/RSV3 and RSV1 unless
/// `allowsRSV1` (1002), an unknown opcode (1002), a control frame that is fragmented or longer than
/// 125 bytes (1002), a non-minimal or 2⁶³+ length (1002), and a payload over `maximumPayload` (1009).
struct WebSocketFrameDecoder {
    /// Whether RSV1 may be set (permessage-deflate was negotiated).
    var allowsRSV1 = false
    /// The largest payload accepted.
    var maximumPayload: Int

    private var buffer: [UInt8] = []
    private var start = 0

    init(maximumPayload: Int, allowsRSV1: Bool = false) {
        self.maximumPayload = maximumPayload
        self.allowsRSV1 = allowsRSV1
    }

    /// Bytes received and not yet decoded.
    var bufferedCount: Int { buffer.count - start }

    /// Adds received bytes.
    mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, `nil` if more bytes are needed; throws on a frame the rules forbid
    /// (as soon as its header shows it).
    mutating func next() throws(WebSocketViolation) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let b0 = buffer[start], b1 = buffer[start + 1]
        let fin = b0 & 0x80 != 0
        let rsv1 = b0 & 0x40 != 0
        if b0 & 0x30 != 0 { throw .protocolError("reserved bits RSV2/RSV3 set") }
        if rsv1, !allowsRSV1 { throw .protocolError("reserved bit RSV1 set without a negotiated extension") }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            throw .protocolError("unknown opcode \(b0 & 0x0F)")
        }
        if b1 & 0x80 != 0 { throw .protocolError("a server frame is masked") }
        if opcode.isControl {
            if !fin { throw .protocolError("a fragmented control frame") }
            if rsv1 { throw .protocolError("RSV1 set on a control frame") }
        }
        var length = UInt64(b1 & 0x7F)
        var headerLength = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
            if length < 126 { throw .protocolError("a 16-bit length below 126") }
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + index]) }
            headerLength = 10
            if length >> 63 != 0 { throw .protocolError("a 64-bit length with the top bit set") }
            if length <= 0xFFFF { throw .protocolError("a 64-bit length below 65536") }
        }
        if opcode.isControl, length > 125 { throw .protocolError("a control frame longer than 125 bytes") }
        if length > UInt64(maximumPayload) {
            throw WebSocketViolation(code: .messageTooBig, detail: "a frame of \(length) bytes")
        }
        let total = headerLength + Int(length)
        guard available >= total else { return nil }
        let payload = Array(buffer[(start + headerLength)..<(start + total)])
        start += total
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        }
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: payload)
    }
}
