import Foundation

/// The head of an HTTP/1.x request as parsed from the wire.
struct RequestHead {
    let method: String
    let target: String
    let version: String
    let headers: MockHeaders

    /// Whether the client asked to close the connection after this exchange (`Connection: close`,
    /// or HTTP/1.0 without `Connection: keep-alive`).
    var wantsClose: Bool {
        let tokens = headers.values(for: "Connection").flatMap { $0.lowercased().split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if tokens.contains("close") { return true }
        return version == "HTTP/1.0" && !tokens.contains("keep-alive")
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    var expectsContinue: Bool {
        headers["Expect"]?.lowercased().contains("100-continue") ?? false
    }

    /// Whether the body uses the chunked transfer coding.
    var isChunked: Bool {
        headers["Transfer-Encoding"]?.lowercased().contains("chunked") ?? false
    }
}

/// A request that is not HTTP/1.x the server can read; the connection answers 400 and closes.
struct MalformedRequest: Error {
    let reason: String
}

/// Reads requests from a connection: heads up to 64 KiB, bodies (up to 1 GiB) by `Content-Length`
/// or chunked.
final class RequestReader {
    private static let maximumHeadSize = 64 * 1024
    /// Request bodies are held in memory: larger ones are refused (400).
    private static let maximumBodySize = 1 << 30
    private let stream: ByteStream
    private var buffer: [UInt8] = []
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(stream: ByteStream) { self.stream = stream }

    /// The next request head, or `nil` when the client closed the connection between requests.
    func readHead() throws -> RequestHead? {
        while true {
            if let end = headEnd() {
                let bytes = buffer[start..<end.head]
                start = end.next
                return try Self.parseHead(String(decoding: bytes, as: UTF8.self))
            }
            if buffer.count - start > Self.maximumHeadSize { throw MalformedRequest(reason: "request head over 64 KiB") }
            if try !fill() {
                if buffer.count == start { return nil }
                throw MalformedRequest(reason: "connection closed inside a request head")
            }
        }
    }

    /// The body announced by `head`: chunked, `Content-Length` bytes, or none.
    func readBody(for head: RequestHead) throws -> Data {
        if head.isChunked { return try readChunkedBody() }
        guard let lengthText = head.headers["Content-Length"] else { return Data() }
        guard let length = Int(lengthText), (0...Self.maximumBodySize).contains(length) else {
            throw MalformedRequest(reason: "bad Content-Length \(lengthText)")
        }
        return try read(count: length)
    }

    // MARK: - Parsing

    private static func parseHead(_ text: String) throws -> RequestHead {
        // "\r\n" is a single Character in Swift: split on it and on a bare "\n".
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" })
        // RFC 9112 §2.2: ignore empty lines before the request line.
        guard let requestLine = lines.first(where: { !$0.isEmpty }) else {
            throw MalformedRequest(reason: "empty request head")
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            throw MalformedRequest(reason: "bad request line \(requestLine)")
        }
        var fields: [MockHeaders.Field] = []
        for line in lines.drop(while: { $0 != requestLine }).dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw MalformedRequest(reason: "bad header line \(line)") }
            fields.append(MockHeaders.Field(name: String(line[..<colon]),
                                            value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return RequestHead(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]),
                           headers: MockHeaders(fields))
    }

    private func readChunkedBody() throws -> Data {
        var body = Data()
        while true {
            let sizeLine = try readLine()
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw MalformedRequest(reason: "bad chunk size \(sizeLine)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailer fields, then the final empty line
                return body
            }
            guard body.count + size <= Self.maximumBodySize else { throw MalformedRequest(reason: "chunked body over 1 GiB") }
            body.append(try read(count: size))
            guard try readLine().isEmpty else { throw MalformedRequest(reason: "chunk not followed by CRLF") }
        }
    }

    // MARK: - Buffer

    /// Reads more bytes into the buffer; `false` at end of stream.
    private func fill() throws -> Bool {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
        let count = try scratch.withUnsafeMutableBytes { try stream.read(into: $0) }
        scratch.withUnsafeBufferPointer { buffer.append(contentsOf: $0.prefix(count)) }
        return count > 0
    }

    /// Where the head ends (`\r\n\r\n` or `\n\n`): the end of the head text (after its last line's
    /// `\n`) and the first body byte. Scans from `start` each time (heads are at most 64 KiB).
    private func headEnd() -> (head: Int, next: Int)? {
        var i = start
        while i < buffer.count {
            if buffer[i] == 0x0A {
                if i + 1 < buffer.count && buffer[i + 1] == 0x0A { return (i + 1, i + 2) }
                if i + 2 < buffer.count && buffer[i + 1] == 0x0D && buffer[i + 2] == 0x0A { return (i + 1, i + 3) }
            }
            i += 1
        }
        return nil
    }

    /// One line without its `\r\n` (at most 8 KiB).
    private func readLine() throws -> String {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            if buffer.count - start > 8 * 1024 { throw MalformedRequest(reason: "line over 8 KiB") }
            guard try fill() else { throw MalformedRequest(reason: "connection closed inside a chunked body") }
        }
    }

    /// Exactly `count` bytes: what is buffered, then straight from the stream into the result.
    private func read(count: Int) throws -> Data {
        let buffered = min(count, buffer.count - start)
        var body = Data(count: count)
        try body.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
            buffer.withUnsafeBytes { source in
                if buffered > 0, let from = source.baseAddress, let to = target.baseAddress {
                    to.copyMemory(from: from + start, byteCount: buffered)
                }
            }
            var filled = buffered
            while filled < count {
                let read = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: target[filled..<count]))
                guard read > 0 else { throw MalformedRequest(reason: "connection closed inside a body") }
                filled += read
            }
        }
        start += buffered
        return body
    }
}
