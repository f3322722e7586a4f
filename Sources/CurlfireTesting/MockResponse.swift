import Foundation

/// One scripted answer of a ``MockServer``: a status, headers and a body, plus how to deliver them.
///
/// A response is a value. The modifiers (``delayed(by:)``, ``throttled(bytesPerSecond:)``,
/// ``chunked()``, ``disconnect(_:)``, ``stalled(at:for:)``) return a modified copy, so they chain:
///
/// ```swift
/// server.enqueue(MockResponse(body: Data(repeating: 7, count: 100_000))
///     .delayed(by: 0.2)
///     .throttled(bytesPerSecond: 50_000)
///     .chunked())
/// ```
///
/// Unless ``headers`` holds one, the server adds `Content-Length` (or `Transfer-Encoding: chunked`
/// after ``chunked()``), and `Connection: close` when it closes the connection afterwards.
public struct MockResponse: Sendable {
    /// A point in the response where the server drops the connection (``disconnect(_:)``) or stops
    /// sending (``stalled(at:for:)``) instead of finishing it.
    public enum DisconnectPoint: Sendable, Hashable, CustomStringConvertible {
        /// After the request was read, before any byte of the response: the client sees an empty reply.
        case beforeHeaders
        /// After the status line and headers, before any byte of the body.
        case afterHeaders
        /// After the first half of the body (rounded down).
        case midBody

        /// `beforeHeaders`, `afterHeaders` or `midBody`.
        public var description: String {
            switch self {
            case .beforeHeaders: "beforeHeaders"
            case .afterHeaders: "afterHeaders"
            case .midBody: "midBody"
            }
        }
    }

    /// The status code of the status line.
    public var statusCode: Int
    /// Header fields sent as given (names keep their case), in the order of their names.
    public var headers: [String: String]
    /// The body. It is written from this `Data` in slices, never copied whole.
    public var body: Data

    /// How long the server waits before sending the status line; `0` by default.
    public private(set) var delay: TimeInterval = 0
    /// The body's pace in bytes per second, or `nil` (as fast as the socket takes it, the default).
    public private(set) var bytesPerSecond: Int?
    /// Whether the body is sent with `Transfer-Encoding: chunked`; `false` by default.
    public private(set) var isChunked = false
    /// Where the connection is dropped, or `nil` (the response is completed, the default).
    public private(set) var disconnectPoint: DisconnectPoint?
    /// Where the server stops sending, or `nil` (it does not stall, the default).
    public private(set) var stallPoint: DisconnectPoint?
    /// How long a stall at ``stallPoint`` lasts before the connection is closed; `.infinity` (until
    /// the server shuts down) by default.
    public private(set) var stallDuration: TimeInterval = .infinity
    /// Where each event of an ``eventStream(_:interval:retry:)`` body ends (byte offsets); empty
    /// for any other body.
    public internal(set) var eventEnds: [Int] = []
    /// The wait before each event after the first, for an ``eventStream(_:interval:retry:)``.
    public internal(set) var eventInterval: TimeInterval = 0

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - statusCode: The status code. `200` by default.
    ///   - headers:    Header fields to send. None by default (the server adds `Content-Length`).
    ///   - body:       The body. Empty by default.
    public init(statusCode: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `value` encoded as JSON (keys sorted), with
    /// `Content-Type: application/json`.
    ///
    /// If `value` cannot be encoded, the response is a `500` whose plain-text body names the
    /// encoding error, so the test that scripted it fails visibly instead of crashing.
    ///
    /// - Parameters:
    ///   - value:      The value to encode with a `JSONEncoder`.
    ///   - statusCode: The status code. `200` by default.
    /// - Returns:      The response.
    public static func json(_ value: some Encodable, statusCode: Int = 200) -> MockResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return MockResponse(statusCode: statusCode, headers: ["Content-Type": "application/json"],
                                body: try encoder.encode(value))
        } catch {
            return .text("MockResponse.json could not encode the value: \(error)", statusCode: 500)
        }
    }

    /// A response whose body is `text` in UTF-8, with `Content-Type: text/plain; charset=utf-8`.
    ///
    /// - Parameters:
    ///   - text:       The body.
    ///   - statusCode: The status code. `200` by default.
    /// - Returns:      The response.
    public static func text(_ text: String, statusCode: Int = 200) -> MockResponse {
        MockResponse(statusCode: statusCode, headers: ["Content-Type": "text/plain; charset=utf-8"],
                     body: Data(text.utf8))
    }

    // MARK: - Modifiers

    /// The same response, sent after waiting `interval` seconds (before the status line).
    ///
    /// The wait ends early when the server shuts down.
    ///
    /// - Parameter interval: Seconds to wait; negative values count as `0`.
    /// - Returns:            The modified copy.
    public func delayed(by interval: TimeInterval) -> MockResponse {
        var copy = self
        copy.delay = max(0, interval)
        return copy
    }

    /// The same response, with its body paced at about `bytesPerSecond` (headers are sent at once).
    ///
    /// The body is written in slices of a tenth of the rate (at least 1 byte, at most 64 KiB), each
    /// when the pace allows.
    ///
    /// - Parameter bytesPerSecond: The rate; values below `1` count as `1`.
    /// - Returns:                  The modified copy.
    public func throttled(bytesPerSecond: Int) -> MockResponse {
        var copy = self
        copy.bytesPerSecond = max(1, bytesPerSecond)
        return copy
    }

    /// The same response, with its body sent as `Transfer-Encoding: chunked` (no `Content-Length`).
    ///
    /// - Returns: The modified copy.
    public func chunked() -> MockResponse {
        var copy = self
        copy.isChunked = true
        return copy
    }

    /// The same response, with the connection dropped at `point` instead of completing it.
    ///
    /// - Parameter point: Where to drop the connection.
    /// - Returns:         The modified copy.
    public func disconnect(_ point: DisconnectPoint) -> MockResponse {
        var copy = self
        copy.disconnectPoint = point
        return copy
    }

    /// The same response, stopping at `point` and sending nothing more for `duration` seconds, then
    /// closing the connection without finishing the response.
    ///
    /// The connection stays open and silent meanwhile, so the client meets its own timeouts:
    /// `.beforeHeaders` is a server that never answers, `.afterHeaders` one that sends its head and
    /// then nothing, `.midBody` one that stops after the first half of the body (rounded down). The
    /// stall ends early when the server shuts down. Combined with ``disconnect(_:)``, whichever
    /// point comes first ends the response.
    ///
    /// - Parameters:
    ///   - point:    Where to stop sending.
    ///   - duration: Seconds to stay silent before closing; negative values count as `0`.
    ///               `.infinity` (until the server shuts down) by default.
    /// - Returns:    The modified copy.
    public func stalled(at point: DisconnectPoint, for duration: TimeInterval = .infinity) -> MockResponse {
        var copy = self
        copy.stallPoint = point
        copy.stallDuration = max(0, duration)
        return copy
    }
}
