import Foundation
import FoundationNetworking

/// Collects the status line and header fields of a response as libcurl's header callback delivers
/// them, one line at a time. A new status line (after a redirect, a `100 Continue` or an auth
/// challenge) starts a new head, so what remains at the end is the final response's head.
///
/// Engine thread only.
struct ResponseHead {
    private(set) var statusCode: Int = 0
    private(set) var httpVersion: String?
    private(set) var isComplete = false
    /// The field lines, in arrival order, each as an 8-byte record (the name's and the value's byte
    /// counts, `UInt32` each) followed by its name and its value (no separators): one buffer, so a
    /// head costs one allocation however many fields it has (this runs on the engine thread for
    /// every response; the ranges used to be a second array).
    private var bytes: [UInt8] = []
    /// Where the last field's record starts in ``bytes`` (-1: no field yet), for continuation lines.
    private var lastFieldStart = -1
    private static let recordSize = 8

    /// One field's name and value as ranges of ``bytes``.
    private struct FieldSpan {
        var nameStart: Int
        var nameEnd: Int
        var valueEnd: Int
        var valueStart: Int { nameEnd }
    }

    /// The fields' spans, in arrival order, read from the records in ``bytes``.
    private struct FieldSpans: Sequence, IteratorProtocol {
        let bytes: [UInt8]
        var offset = 0

        mutating func next() -> FieldSpan? {
            guard offset + ResponseHead.recordSize <= bytes.count else { return nil }
            let (nameLength, valueLength) = bytes.withUnsafeBytes { raw in
                (Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                 Int(raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            }
            let nameStart = offset + ResponseHead.recordSize
            let span = FieldSpan(nameStart: nameStart, nameEnd: nameStart + nameLength,
                                 valueEnd: nameStart + nameLength + valueLength)
            offset = span.valueEnd
            return span
        }
    }

    private var spans: FieldSpans { FieldSpans(bytes: bytes) }

    /// The fields, in arrival order, as strings (made on each read: for the cache and for tests;
    /// the engine's lookups compare bytes).
    var fields: [(name: String, value: String)] {
        spans.map { (string($0.nameStart, $0.nameEnd), string($0.valueStart, $0.valueEnd)) }
    }

    private func string(_ start: Int, _ end: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    /// Allocates the buffer a small head fits in, before the engine thread fills it: on the thread
    /// that starts the attempt, the one that usually frees it (ResultSpares.swift).
    mutating func reserveBuffer() {
        if bytes.capacity < Self.reservedCapacity { bytes.reserveCapacity(Self.reservedCapacity) }
    }

    /// The buffer's first capacity: the fields of a typical response head.
    private static let reservedCapacity = 512

    /// Feeds one raw header line (with its CRLF).
    ///
    /// Names and values are kept as bytes in one buffer (each `String` of more than 15 bytes would
    /// be one more allocation).
    mutating func consume(_ line: UnsafeBufferPointer<UInt8>) {
        var end = line.count
        while end > 0, line[end - 1] == 10 || line[end - 1] == 13 { end -= 1 }
        if end == 0 {
            if statusCode != 0 { isComplete = true }
            return
        }
        let bytes = UnsafeBufferPointer(rebasing: line[0..<end])
        if bytes.count >= 5, bytes[0] == 72, bytes[1] == 84, bytes[2] == 84, bytes[3] == 80, bytes[4] == 47 { // "HTTP/"
            startNewHead(statusLine: bytes)
            return
        }
        // Obsolete line folding (RFC 9112 §5.2): a line starting with a space or a tab continues the
        // previous field; its whole content joins the value after one space. The first byte, not the
        // first Character: a space followed by a combining mark is one Character.
        if bytes[0] == 32 || bytes[0] == 9 {
            guard lastFieldStart >= 0 else { return } // nothing to continue: ignored
            var start = 0
            while start < bytes.count, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
            guard start < bytes.count else { return }
            // The last field's value ends the buffer, so the continuation is appended in place.
            self.bytes.append(32)
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
            let record = lastFieldStart
            let valueLength = self.bytes.count - record - Self.recordSize - nameLength(at: record)
            self.bytes.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(valueLength), toByteOffset: record + 4, as: UInt32.self) }
            return
        }
        guard let colon = bytes.firstIndex(of: 58) else { return } // ':'
        var valueStart = colon + 1
        while valueStart < bytes.count, bytes[valueStart] == 32 || bytes[valueStart] == 9 { valueStart += 1 }
        appendField(name: UnsafeBufferPointer(rebasing: bytes[0..<colon]),
                    value: UnsafeBufferPointer(rebasing: bytes[valueStart..<bytes.count]))
    }

    /// Appends one field's record, name and value: one zero-filled extension (the array grows as
    /// its appends do) and two copies into it. (It was four appends, each checking uniqueness and
    /// capacity, on the engine thread for every line of every response.)
    private mutating func appendField(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if bytes.isEmpty { bytes.reserveCapacity(Self.reservedCapacity) }
        let record = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Self.recordSize + name.count + value.count))
        bytes.withUnsafeMutableBytes { buffer in
            buffer.storeBytes(of: UInt32(name.count), toByteOffset: record, as: UInt32.self)
            buffer.storeBytes(of: UInt32(value.count), toByteOffset: record + 4, as: UInt32.self)
            let nameStart = record + Self.recordSize
            if let base = name.baseAddress, !name.isEmpty {
                (buffer.baseAddress! + nameStart).copyMemory(from: base, byteCount: name.count)
            }
            if let base = value.baseAddress, !value.isEmpty {
                (buffer.baseAddress! + nameStart + name.count).copyMemory(from: base, byteCount: value.count)
            }
        }
        lastFieldStart = record
    }

    /// The name length in the record at `record`.
    private func nameLength(at record: Int) -> Int {
        bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: record, as: UInt32.self)) }
    }

    private mutating func startNewHead(statusLine: UnsafeBufferPointer<UInt8>) {
        // "HTTP/1.1 200 OK": the version up to the first space, then the code's digits.
        var index = 0
        while index < statusLine.count, statusLine[index] != 32 { index += 1 }
        httpVersion = Self.version(UnsafeBufferPointer(rebasing: statusLine[0..<index]))
        while index < statusLine.count, statusLine[index] == 32 { index += 1 }
        var codeEnd = index
        while codeEnd < statusLine.count, statusLine[codeEnd] != 32 { codeEnd += 1 }
        // Three digits make a small string: no allocation.
        statusCode = Int(String(decoding: UnsafeBufferPointer(rebasing: statusLine[index..<codeEnd]), as: UTF8.self)) ?? 0
        bytes.removeAll(keepingCapacity: true)
        lastFieldStart = -1
        isComplete = false
    }

    /// The version token; the common ones without decoding.
    private static func version(_ token: UnsafeBufferPointer<UInt8>) -> String {
        if token.elementsEqual("HTTP/1.1".utf8) { return "HTTP/1.1" }
        if token.elementsEqual("HTTP/2".utf8) { return "HTTP/2" }
        if token.elementsEqual("HTTP/1.0".utf8) { return "HTTP/1.0" }
        return String(decoding: token, as: UTF8.self)
    }

    /// Whether the span's name equals `name`, ignoring ASCII case.
    private func nameMatches(_ span: FieldSpan, _ name: String) -> Bool {
        let length = span.nameEnd - span.nameStart
        guard name.utf8.count == length else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            var index = span.nameStart
            for expected in name.utf8 {
                let actual = buffer[index]
                let a = actual >= 65 && actual <= 90 ? actual + 32 : actual
                let b = expected >= 65 && expected <= 90 ? expected + 32 : expected
                if a != b { return false }
                index += 1
            }
            return true
        }
    }

    /// The value of the first field named `name` (ASCII case-insensitive, without Foundation).
    func value(for name: String) -> String? {
        guard let span = spans.first(where: { nameMatches($0, name) }) else { return nil }
        return string(span.valueStart, span.valueEnd)
    }

    /// The first `Content-Length` field as a number: decimal digits between optional blanks, else `nil`
    /// (read from the bytes: no string is made for it on the engine thread, which sizes the body's
    /// buffer from it).
    var contentLength: Int64? {
        guard let span = spans.first(where: { nameMatches($0, "Content-Length") }) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int64? in
            var start = span.valueStart, end = span.valueEnd
            while start < end, buffer[start] == 32 || buffer[start] == 9 { start += 1 }
            while end > start, buffer[end - 1] == 32 || buffer[end - 1] == 9 { end -= 1 }
            // Int64's own parser, as for the string: an optional sign, digits, nothing else.
            return Int64(Substring(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self))
        }
    }

    /// Every value of `name` joined with `", "`, as `HTTPURLResponse.value(forHTTPHeaderField:)` gives it.
    func joinedValue(for name: String) -> String? {
        var joined: String?
        for span in spans where nameMatches(span, name) {
            let value = string(span.valueStart, span.valueEnd)
            joined = joined.map { $0 + ", " + value } ?? value
        }
        return joined
    }

    /// Header fields as a dictionary: repeated names are joined with `", "` as Foundation does,
    /// except `Set-Cookie`, whose values are joined with `"\n"`-free `", "` too (cookies parse both).
    var headerDictionary: [String: String] {
        var result: [String: String] = [:]
        var canonicalNames: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            if let existing = canonicalNames[key] {
                result[existing] = (result[existing] ?? "") + ", " + value
            } else {
                canonicalNames[key] = name
                result[name] = value
            }
        }
        return result
    }

    /// An `HTTPURLResponse` for `url`, or `nil` when no status line arrived.
    func makeResponse(url: URL) -> HTTPURLResponse? {
        guard statusCode > 0 else { return nil }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerDictionary)
    }
}

/// A finished attempt's response head, turned into an `HTTPURLResponse` on first use.
///
/// Foundation's `HTTPURLResponse.init` sanitises and case-folds every header, which cost an eighth of
/// the CPU per small request on the engine thread — the one thread every transfer of a session
/// shares. The engine only captures the head; whoever first reads the response (a handler on its
/// queue, an awaiting task, a caller of `request.response`) builds it, once (`@unchecked Sendable`:
/// `built` is read and written under `lock`; `head` and `url` are set before the object is published
/// — at its initialisation, or by the engine thread that owns a spare (``fill(head:url:)``) — and only
/// read afterwards).
final class LazyResponse: @unchecked Sendable {
    @exclusivity(unchecked) private var head: ResponseHead?
    @exclusivity(unchecked) private var url: URL?
    private var built: HTTPURLResponse??

    /// The lock of `built`: one of the shared ``StripedLocks`` (a lock of its own was one more
    /// allocation per request). A response is built at most once, by whoever reads it first, so
    /// responses that share a lock seldom wait for each other; nothing but building is done under it.
    private var lock: MutexReference { StripedLocks.lock(for: self) }

    init(head: ResponseHead, url: URL) {
        self.head = head
        self.url = url
    }

    /// An empty one, allocated ahead on the thread that starts an attempt (ResultSpares.swift);
    /// ``fill(head:url:)`` gives it its head before anything reads it.
    init() {
        head = nil
        url = nil
    }

    /// Sets the head of a spare made by ``init()``. Engine thread, before the response is published.
    func fill(head: ResponseHead, url: URL) {
        self.head = head
        self.url = url
    }

    /// A response that already exists (built by a caller of a public initialiser).
    init(built response: HTTPURLResponse) {
        head = nil
        url = nil
        built = .some(response)
    }

    /// Boxes a response a caller made, `nil` for none.
    static func wrapping(_ response: HTTPURLResponse?) -> LazyResponse? {
        response.map { LazyResponse(built: $0) }
    }

    /// The status code, without building the response.
    var statusCode: Int { head?.statusCode ?? response?.statusCode ?? 0 }

    /// A header's value (repeated fields joined), without building the response.
    func headerValue(_ name: String) -> String? {
        if let head { return head.joinedValue(for: name) }
        return response?.value(forHTTPHeaderField: name)
    }

    /// Whether ``response`` has been made (for tests of what builds it).
    var hasBuiltResponse: Bool { lock.withLock { built != nil } }

    /// The response, built on first access.
    var response: HTTPURLResponse? {
        lock.lock()
        defer { lock.unlock() }
        if let built { return built }
        guard let head, let url else { return nil }
        let made = head.makeResponse(url: url)
        built = .some(made)
        return made
    }
}
