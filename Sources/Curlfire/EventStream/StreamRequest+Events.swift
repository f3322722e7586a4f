import Foundation

extension StreamRequest {
    /// The body parsed as a `text/event-stream` (WHATWG HTML's event stream format), as an
    /// `AsyncSequence` of events — for a stream you already have; ``EventStreamRequest`` also
    /// reconnects. No reconnection, no status or content type check here (add `validate()`).
    /// Starts the request; cancelling the iterating task cancels it.
    ///
    /// - Parameter maximumEventSize: The most bytes one event may hold; past it the transfer is
    ///   cancelled and the sequence throws ``CurlfireError/EventStreamFailureReason/eventTooLarge(limit:)``.
    ///   4 MiB by default.
    /// - Returns: The events.
    public func streamingEvents(maximumEventSize: Int = 4 << 20) -> ServerSentEventStream {
        ServerSentEventStream(base: streamingData(), maximumEventSize: maximumEventSize)
    }
}

/// The body of a ``StreamRequest`` as server-sent events (from
/// ``StreamRequest/streamingEvents(maximumEventSize:)``). Iterate it once.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent

    let base: DataStream
    let maximumEventSize: Int

    /// The completion (response, Timeline, metrics, error), once the transfer is over.
    public var completion: StreamRequest.Completion {
        get async { await base.completion }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), parser: ServerSentEventParser(maximumEventSize: maximumEventSize))
    }

    /// Iterates the events.
    public struct Iterator: AsyncIteratorProtocol {
        var base: DataStream.Iterator
        var parser: ServerSentEventParser
        var events: [ServerSentEvent] = []
        var next = 0

        /// The next event, `nil` at the end (an unfinished last event is discarded); throws the
        /// transfer's error or ``CurlfireError/EventStreamFailureReason/eventTooLarge(limit:)``.
        public mutating func next() async throws -> ServerSentEvent? {
            while next == events.count {
                guard let chunk = try await base.next() else {
                    parser.finish()
                    return nil
                }
                do {
                    events = try parser.parse(chunk)
                    next = 0
                } catch {
                    base.cancelTransfer()
                    throw error
                }
            }
            next += 1
            return events[next - 1]
        }
    }
}
