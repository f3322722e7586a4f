import Curlfire
import Foundation

extension MockResponse {
    /// A `text/event-stream` response (server-sent events), sent chunked, one event at a time.
    ///
    /// Each event is written as the standard's fields: `id:` when it has one, `event:` unless its
    /// type is `message`, `retry:` when it has one, one `data:` line per line of its data, then a
    /// blank line. Chained with ``disconnect(_:)`` or ``stalled(at:for:)`` at `.midBody`, the
    /// server drops the connection (or goes silent) after the first half of the events, rounded
    /// down: a mid-stream disconnect a reconnecting client must survive. The request of the
    /// reconnection, with its `Last-Event-ID`, is what ``MockServer/takeRequest(timeout:)`` returns next.
    ///
    /// - Parameters:
    ///   - events:   The events, in order.
    ///   - interval: Seconds to wait before each event after the first. `0` by default.
    ///   - retry:    A reconnection time in milliseconds, sent as a `retry:` field before the
    ///               first event. `nil` by default.
    /// - Returns:    The response.
    public static func eventStream(_ events: [ServerSentEvent], interval: TimeInterval = 0,
                                   retry: Int? = nil) -> MockResponse {
        var body = Data()
        var ends: [Int] = []
        if let retry { body.append(Data("retry: \(retry)\n\n".utf8)) }
        for event in events {
            body.append(Data(encode(event).utf8))
            ends.append(body.count)
        }
        var response = MockResponse(statusCode: 200, headers: ["Content-Type": "text/event-stream",
                                                               "Cache-Control": "no-cache"], body: body).chunked()
        response.eventEnds = ends
        response.eventInterval = max(0, interval)
        return response
    }

    /// One event in the wire format.
    static func encode(_ event: ServerSentEvent) -> String {
        var text = ""
        if let id = event.id { text += "id: \(id)\n" }
        if event.event != "message" { text += "event: \(event.event)\n" }
        if let retry = event.retry { text += "retry: \(retry)\n" }
        for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// The byte count of the body sent before a `.midBody` disconnect or stall.
    var midBodyLength: Int {
        guard !eventEnds.isEmpty else { return body.count / 2 }
        let kept = eventEnds.count / 2
        return kept == 0 ? 0 : eventEnds[kept - 1]
    }
}
