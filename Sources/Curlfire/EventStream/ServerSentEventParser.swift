import Foundation

/// The WHATWG HTML "event stream" interpretation of a `text/event-stream` body, fed chunk by chunk
/// (a pure value: unit-tested from the standard's examples and fuzzed).
///
/// Bytes are split into lines at CR, LF or CRLF (also when a CRLF is split across chunks); one
/// leading UTF-8 BOM is dropped; fields are decoded as UTF-8 with U+FFFD for invalid sequences.
/// A blank line dispatches the event being built, unless its data buffer is empty; an event not
/// finished by a blank line when the stream ends is discarded. The last event ID and the
/// reconnection time outlive a connection (``startConnection()``).
///
/// ``EventStreamRequest`` and ``StreamRequest/streamingEvents(maximumEventSize:)`` use it; it is
/// public for bodies that arrive some other way (a file, another transport).
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for chunk in chunks { for event in try parser.parse(chunk) { print(event.data) } }
/// parser.finish()
/// ```
public struct ServerSentEventParser: Sendable {
    /// The most bytes one event may hold: its data buffer plus the line being read.
    public let maximumEventSize: Int
    /// The last event ID buffer (the latest `id:` without NUL).
    public private(set) var lastEventID = ""
    /// The latest valid `retry:` value in milliseconds.
    public private(set) var reconnectionTime: Int?

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var blockRetry: Int?
    /// The bytes of a leading BOM matched so far; `nil` once past the stream's start.
    private var bomMatched: Int? = 0
    /// The previous chunk ended with CR: a LF starting this one belongs to that line end.
    private var afterCR = false

    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A

    /// A parser whose events hold at most `maximumEventSize` bytes.
    ///
    /// - Parameter maximumEventSize: The most bytes one event may hold. 4 MiB by default.
    public init(maximumEventSize: Int = 4 << 20) {
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// Forgets what the previous connection left unfinished (a new stream: its BOM, its partial
    /// event), keeping the last event ID and the reconnection time.
    public mutating func startConnection() {
        line.removeAll(keepingCapacity: true)
        data.removeAll(keepingCapacity: true)
        eventType.removeAll()
        blockRetry = nil
        bomMatched = 0
        afterCR = false
    }

    /// The events that `chunk` completes, in order.
    ///
    /// - Throws: ``CurlfireError/EventStreamFailureReason/eventTooLarge(limit:)`` when an event
    ///   grows past ``maximumEventSize``; the parser is then spent.
    public mutating func parse(_ chunk: some DataProtocol) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for region in chunk.regions {
            try region.withUnsafeBytes { try parse(bytes: $0, into: &events) }
        }
        return events
    }

    /// The events that `bytes` completes, appended to `events`.
    mutating func parse(bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws {
        var index = 0
        let count = bytes.count
        if let matched = bomMatched { index = skipBOM(bytes, matched: matched) }
        while index < count {
            if afterCR {
                afterCR = false
                if bytes[index] == Self.lf {
                    index += 1
                    continue
                }
            }
            var end = index
            while end < count, bytes[end] != Self.lf, bytes[end] != Self.cr { end += 1 }
            if end > index {
                guard line.count + data.count + (end - index) <= maximumEventSize else {
                    throw CurlfireError.eventStreamFailed(reason: .eventTooLarge(limit: maximumEventSize))
                }
                line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
            }
            guard end < count else { break }
            afterCR = bytes[end] == Self.cr
            index = end + 1
            if let event = try endLine() { events.append(event) }
        }
    }

    /// Consumes the part of a leading BOM in `bytes`; returns where the stream's bytes start.
    private mutating func skipBOM(_ bytes: UnsafeRawBufferPointer, matched start: Int) -> Int {
        var matched = start
        var index = 0
        while matched < Self.bom.count, index < bytes.count, bytes[index] == Self.bom[matched] {
            matched += 1
            index += 1
        }
        if matched == Self.bom.count {
            bomMatched = nil
            return index
        }
        if index == bytes.count {
            bomMatched = matched
            return index
        }
        // Not a BOM after all: what earlier chunks matched are the stream's first bytes, and this
        // chunk is read from its start.
        bomMatched = nil
        line.append(contentsOf: Self.bom[0..<start])
        return 0
    }

    /// The stream ended: the unfinished event is discarded (the standard's rule).
    public mutating func finish() {
        startConnection()
    }

    /// Interprets the line just ended; returns the event a blank line dispatches.
    private mutating func endLine() throws -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let field = line[..<(colon ?? line.endIndex)]
        var value = colon.map { line[($0 + 1)...] } ?? line[line.endIndex...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        process(field: field, value: value)
        return nil
    }

    private mutating func process(field: ArraySlice<UInt8>, value: ArraySlice<UInt8>) {
        switch field.count {
        case 4 where field.elementsEqual("data".utf8):
            data.append(contentsOf: value)
            data.append(Self.lf)
        case 5 where field.elementsEqual("event".utf8):
            eventType = Array(value)
        case 2 where field.elementsEqual("id".utf8):
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case 5 where field.elementsEqual("retry".utf8):
            guard !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return }
            var milliseconds = 0
            for digit in value {
                milliseconds = milliseconds > (Int.max - 9) / 10 ? Int.max : milliseconds * 10 + Int(digit - 0x30)
            }
            reconnectionTime = milliseconds
            blockRetry = milliseconds
        default:
            break
        }
    }

    /// The blank line: the event built so far, unless its data buffer is empty.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll()
            blockRetry = nil
        }
        guard !data.isEmpty else { return nil }
        data.removeLast()
        return ServerSentEvent(id: lastEventID.isEmpty ? nil : lastEventID,
                               event: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
                               data: String(decoding: data, as: UTF8.self), retry: blockRetry)
    }
}
