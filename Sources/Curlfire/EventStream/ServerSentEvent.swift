import Foundation

/// One event of a `text/event-stream` response, as the WHATWG HTML standard's event stream
/// processing model dispatches it.
///
/// The name is the one swift-openapi-runtime also uses for its own type; code that imports both
/// modules and spells the type out writes `Curlfire.ServerSentEvent` (iterating
/// ``EventStreamRequest/events()`` needs no spelling at all).
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The last event ID of the stream when the event was dispatched (the latest `id:` field, which
    /// carries over to later events), `nil` when none was set or it was set empty.
    public var id: String?
    /// The event type: the `event:` field, `"message"` when the event has none.
    public var event: String
    /// The `data:` lines joined with `"\n"` (without a final newline).
    public var data: String
    /// The reconnection time in milliseconds from a valid `retry:` field of this event, if it had one.
    public var retry: Int?

    /// An event.
    ///
    /// - Parameters:
    ///   - id:    The last event ID. `nil` by default.
    ///   - event: The type. `"message"` by default.
    ///   - data:  The data.
    ///   - retry: The reconnection time in milliseconds. `nil` by default.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// `event: <type>, id: <id>, data: <data>` on one line (newlines in data escaped).
    public var description: String {
        var text = "event: \(event)"
        if let id { text += ", id: \(id)" }
        if let retry { text += ", retry: \(retry)" }
        return text + ", data: " + data.replacingOccurrences(of: "\n", with: "\\n")
    }
}
