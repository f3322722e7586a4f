import Foundation
internal import CZlib

/// The permessage-deflate parameters the server accepted (RFC 7692 section 7.1).
struct PerMessageDeflateParameters: Sendable, Equatable {
    /// The server resets its compressor after each message.
    var serverNoContextTakeover = false
    /// We must reset our compressor after each message.
    var clientNoContextTakeover = false
    /// The window our compressor may use (9–15; zlib's raw deflate cannot use 8).
    var clientMaxWindowBits = 15

    /// The offer sent in `Sec-WebSocket-Extensions`.
    static let offer = "permessage-deflate; client_max_window_bits"

    /// Parses the server's `Sec-WebSocket-Extensions` value: `nil` when it accepted no extension;
    /// throws when it names one not offered, repeats one, or gives a parameter RFC 7692 forbids.
    static func negotiated(from header: String?) throws(WebSocketViolation) -> PerMessageDeflateParameters? {
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        let extensions = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard extensions.count == 1 else { throw .protocolError("more than one extension accepted: \(header)") }
        let parts = extensions[0].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "permessage-deflate" else {
            throw .protocolError("an extension that was not offered: \(extensions[0])")
        }
        var parameters = PerMessageDeflateParameters()
        var seen = Set<String>()
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            let value = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            guard seen.insert(name).inserted else { throw .protocolError("extension parameter \(name) repeated") }
            switch (name, value) {
            case ("server_no_context_takeover", nil): parameters.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): parameters.clientNoContextTakeover = true
            case let ("server_max_window_bits", bits?):
                // Our inflater always has a 15-bit window, enough for any smaller one.
                guard let value = Int(bits), (8...15).contains(value) else {
                    throw .protocolError("server_max_window_bits=\(bits)")
                }
            case let ("client_max_window_bits", bits?):
                guard let value = Int(bits), (8...15).contains(value) else {
                    throw .protocolError("client_max_window_bits=\(bits)")
                }
                parameters.clientMaxWindowBits = max(value, 9)
            default:
                throw .protocolError("extension parameter \(part) is not permessage-deflate's")
            }
        }
        return parameters
    }
}

/// Inflates permessage-deflate messages: a raw-deflate stream, kept across messages unless the
/// server resets its own (`server_no_context_takeover`). Owned by one connection's thread.
/// `@unchecked Sendable`: the `z_stream` is used only on its connection's own thread
/// (`WebSocketLoop`), one message at a time; it is made there too.
final class WebSocketInflater: @unchecked Sendable {
    private var stream = z_stream()
    private let resetsEachMessage: Bool
    private var ready = false

    init(resetsEachMessage: Bool) {
        self.resetsEachMessage = resetsEachMessage
        ready = cfz_inflate_init_raw(&stream) == Z_OK
    }

    deinit { if ready { inflateEnd(&stream) } }

    /// The message's bytes; throws 1009 past `limit` and 1007 for data that does not inflate.
    func inflate(_ compressed: [UInt8], limit: Int) throws(WebSocketViolation) -> [UInt8] {
        guard ready else { throw WebSocketViolation(code: .invalidFramePayloadData, detail: "zlib did not start", isDecompression: true) }
        var input = compressed
        input.append(contentsOf: [0x00, 0x00, 0xFF, 0xFF]) // RFC 7692 section 7.2.2
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var failure: WebSocketViolation?
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { outputBuffer in
                    stream.next_out = outputBuffer.baseAddress
                    stream.avail_out = UInt32(outputBuffer.count)
                    let status = CZlib.inflate(&stream, Z_SYNC_FLUSH)
                    if status != Z_OK, status != Z_BUF_ERROR, status != Z_STREAM_END {
                        failure = WebSocketViolation(code: .invalidFramePayloadData, detail: "inflate failed (zlib \(status))",
                                                     isDecompression: true)
                    }
                    return outputBuffer.count - Int(stream.avail_out)
                }
                if failure != nil { break }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit {
                    failure = WebSocketViolation(code: .messageTooBig, detail: "a message inflating past \(limit) bytes")
                    break
                }
                if produced == 0 { break }
            } while stream.avail_in > 0 || stream.avail_out == 0
            stream.next_in = nil
            stream.next_out = nil
        }
        if let failure { throw failure }
        if resetsEachMessage { inflateReset(&stream) }
        return output
    }
}

/// Deflates outgoing messages for permessage-deflate (raw deflate, sync flush, the trailing
/// `00 00 FF FF` removed). Owned by one connection's thread.
/// `@unchecked Sendable`: the `z_stream` is used only on its connection's own thread
/// (`WebSocketLoop`), one message at a time; it is made there too.
final class WebSocketDeflater: @unchecked Sendable {
    private var stream = z_stream()
    private let resetsEachMessage: Bool
    private var ready = false

    init(parameters: PerMessageDeflateParameters) {
        resetsEachMessage = parameters.clientNoContextTakeover
        ready = cfz_deflate_init_raw(&stream, Int32(parameters.clientMaxWindowBits)) == Z_OK
    }

    deinit { if ready { deflateEnd(&stream) } }

    /// The compressed payload, `nil` if zlib failed (the message is then sent uncompressed).
    func deflate(_ message: [UInt8]) -> [UInt8]? {
        guard ready else { return nil }
        var input = message
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var failed = false
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { outputBuffer in
                    stream.next_out = outputBuffer.baseAddress
                    stream.avail_out = UInt32(outputBuffer.count)
                    let status = CZlib.deflate(&stream, Z_SYNC_FLUSH)
                    if status != Z_OK, status != Z_BUF_ERROR { failed = true }
                    return outputBuffer.count - Int(stream.avail_out)
                }
                if failed { break }
                output.append(contentsOf: chunk[0..<produced])
            } while stream.avail_out == 0
            stream.next_in = nil
            stream.next_out = nil
        }
        if failed { return nil }
        if output.count >= 4, output.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] { output.removeLast(4) }
        if resetsEachMessage { deflateReset(&stream) }
        return output
    }
}
