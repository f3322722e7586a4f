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
    private(set) var fields: [(name: String, value: String)] = []
    private(set) var isComplete = false

    /// Feeds one raw header line (with its CRLF).
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
            guard let last = fields.popLast() else { return } // nothing to continue: ignored
            var start = 0
            while start < bytes.count, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
            let more = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]), as: UTF8.self)
            fields.append((last.name, more.isEmpty ? last.value : last.value + " " + more))
            return
        }
        guard let colon = bytes.firstIndex(of: 58) else { return } // ':'
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<colon]), as: UTF8.self)
        var valueStart = colon + 1
        while valueStart < bytes.count, bytes[valueStart] == 32 || bytes[valueStart] == 9 { valueStart += 1 }
        let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<bytes.count]), as: UTF8.self)
        fields.append((name, value))
    }

    private mutating func startNewHead(statusLine: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: statusLine, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        httpVersion = parts.first.map(String.init)
        statusCode = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        fields.removeAll(keepingCapacity: true)
        isComplete = false
    }

    /// The value of the first field named `name` (ASCII case-insensitive, without Foundation).
    func value(for name: String) -> String? {
        fields.first { HeaderName.equals($0.name, name) }?.value
    }

    /// Every value of `name` joined with `", "`, as `HTTPURLResponse.value(forHTTPHeaderField:)` gives it.
    func joinedValue(for name: String) -> String? {
        var joined: String?
        for field in fields where HeaderName.equals(field.name, name) {
            joined = joined.map { $0 + ", " + field.value } ?? field.value
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
/// queue, an awaiting task, a caller of `request.response`) builds it, once.
final class LazyResponse: @unchecked Sendable {
    private let head: ResponseHead?
    private let url: URL?
    private let lock = NSLock()
    private var built: HTTPURLResponse??

    init(head: ResponseHead, url: URL) {
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
