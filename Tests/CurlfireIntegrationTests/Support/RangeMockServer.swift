// Test support for downloads, shared by the integration and the CLI tests (Tests/CurlfireCLITests/Support
// links to this file): a `MockServer(dispatcher:)` in the test process that serves deterministic files
// by byte range and misbehaves in chosen ways — dropping the connection half-way, stalling, ignoring
// or refusing ranges, sending slowly. Each test starts its own, so its request log is the test's own.
import CurlfireTesting
import Foundation

/// Files at `/<mode>/<size>` on a ``MockServer``: the body is `size` bytes where byte `i` is
/// `(i * 7 + (i >> 8)) & 0xFF`, with `ETag: "v1-<size>"` (except in `lastModified` mode) and
/// `Last-Modified: Tue, 01 Apr 2025 10:00:00 GMT`.
///
/// A `Range: bytes=S-` request is answered `206` with the rest of the body, or `416` when `S` is past
/// the end; an `If-Range` matching neither validator makes it a `200` with the whole body.
final class RangeMockServer: Sendable {
    /// How the server treats a path.
    enum Mode: String, Sendable, CaseIterable {
        /// Honours `Range` (with `If-Range`).
        case good
        /// Like `good`, paced at ``RangeMockServer/slowBytesPerSecond`` (for cancelling at chosen points).
        case slow
        /// Without `Range`: `Content-Length: size`, half the body, then the connection closes (FIN).
        /// `Range` is honoured, so the download can be resumed.
        case drop
        /// Without `Range`: `Content-Length: size`, half the body, then silence until the server
        /// shuts down (the connection stays open). `Range` is honoured.
        case stall
        /// Ignores `Range`: always `200` with the whole body.
        case norange
        /// Answers `Range` with `416` and `Content-Range: bytes */size`.
        case unsatisfiable
        /// Answers `Range` with `503` and a short text body.
        case flaky
        /// Like `good`, without an `ETag` (`If-Range` carries the date).
        case lastModified = "lastmodified"
    }

    /// The `Last-Modified` date of every file.
    static let lastModified = "Tue, 01 Apr 2025 10:00:00 GMT"
    /// The pace of `slow` mode: about 4 MB/s, in 64 KiB slices.
    static let slowBytesPerSecond = 4_000_000

    /// The server.
    let server: MockServer
    private let taken = TakenRequests()

    /// Starts a server on a free port of 127.0.0.1.
    init() throws {
        server = try MockServer(dispatcher: Self.response(to:))
    }

    /// `http://127.0.0.1:PORT/<mode>/<size>`.
    func url(_ mode: Mode, size: Int) -> URL {
        server.url("/\(mode.rawValue)/\(size)")
    }

    /// The `ETag` of a file of `size` bytes (in every mode but `lastModified`).
    static func entityTag(size: Int) -> String { "\"v1-\(size)\"" }

    /// The bytes served for `size`: byte `i` is `(i * 7 + (i >> 8)) & 0xFF`.
    static func expectedBody(size: Int) -> Data {
        var data = Data(count: size)
        data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            for index in 0..<size { bytes[index] = UInt8(truncatingIfNeeded: index &* 7 &+ (index >> 8)) }
        }
        return data
    }

    /// Every request received so far for `path` (e.g. `/drop/200000`), oldest first.
    func requests(for path: String) -> [RecordedRequest] {
        taken.drain(server).filter { $0.path == path }
    }

    /// The `Range` and `If-Range` headers of the requests for `path` so far, oldest first.
    func rangeHeaders(for path: String) -> [(range: String?, ifRange: String?)] {
        requests(for: path).map { ($0.headers["Range"], $0.headers["If-Range"]) }
    }

    // MARK: - The dispatcher

    /// The answer to `request`; pure, so it can be checked without a network.
    static func response(to request: RecordedRequest) -> MockResponse {
        let parts = request.pathWithoutQuery.split(separator: "/")
        guard parts.count == 2, let mode = Mode(rawValue: String(parts[0])), let size = Int(parts[1]), size >= 0 else {
            return .text("not found\n", statusCode: 404)
        }
        let entityTag = mode == .lastModified ? nil : Self.entityTag(size: size)
        var start = requestedStart(request.headers["Range"])
        if start != nil, let ifRange = request.headers["If-Range"], ifRange != entityTag, ifRange != lastModified {
            start = nil  // the entity "changed": send it whole
        }
        if mode == .norange { start = nil }
        if let start {
            if mode == .unsatisfiable || start >= size {
                return MockResponse(statusCode: 416, headers: ["Content-Range": "bytes */\(size)"])
            }
            if mode == .flaky { return .text("try later\n", statusCode: 503) }
        }
        var headers = ["Last-Modified": lastModified, "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"]
        headers["ETag"] = entityTag
        let body = expectedBody(size: size)
        guard let start else {
            let whole = MockResponse(statusCode: 200, headers: headers, body: body)
            switch mode {
            case .drop: return whole.disconnect(.midBody)
            case .stall: return whole.stalled(at: .midBody)
            case .slow: return whole.throttled(bytesPerSecond: slowBytesPerSecond)
            default: return whole
            }
        }
        headers["Content-Range"] = "bytes \(start)-\(size - 1)/\(size)"
        let rest = MockResponse(statusCode: 206, headers: headers, body: body.subdata(in: start..<size))
        return mode == .slow ? rest.throttled(bytesPerSecond: slowBytesPerSecond) : rest
    }

    /// `S` of `Range: bytes=S-`, or `nil` for no header or any other form.
    private static func requestedStart(_ range: String?) -> Int? {
        guard let range, range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
        return Int(range.dropFirst("bytes=".count).dropLast())
    }
}

/// The requests taken from a server so far, so a log can be read more than once.
private final class TakenRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [RecordedRequest] = []  // guarded by `lock`

    /// Takes every request the server holds (without waiting) and returns all taken so far.
    func drain(_ server: MockServer) -> [RecordedRequest] {
        lock.withLock {
            while let request = server.takeRequest(timeout: 0) { requests.append(request) }
            return requests
        }
    }
}
