import Foundation

extension EventStreamRequest {
    /// The events as an `AsyncSequence`, across reconnections. It ends when the server ends the
    /// stream for good (HTTP 204, or a closed connection when reconnection is off) and throws why
    /// the stream failed (a ``CurlfireError``). Opens the first connection when iterated. An event
    /// counts as consumed when the iterator returns it: a slow consumer pauses the connection.
    /// Cancelling the iterating task, or abandoning the iteration, ends the stream.
    ///
    /// - Returns: The events. Iterate once: a second consumer fails with
    ///   ``CurlfireError/EventStreamFailureReason/alreadyConsumed``.
    public func events() -> Events { Events(owner: self) }

    /// The data of each event decoded as JSON into `type`, as an `AsyncSequence` — an LLM's
    /// streamed completion, say. The sequence ends at the first event whose data is `terminator`
    /// (and closes the connection: nothing is replayed), or when the stream ends. An event that
    /// does not decode ends the sequence with
    /// ``CurlfireError/ResponseSerializationFailureReason/decodingFailed(error:)`` and closes the stream.
    ///
    /// - Parameters:
    ///   - type:       The type of each event's data. Inferred by default.
    ///   - decoder:    The decoder. A new `JSONDecoder()` by default.
    ///   - terminator: The data that marks the end of the stream. `"[DONE]"` by default (OpenAI's);
    ///                 `nil` for none.
    /// - Returns:      The decoded values.
    public func decodingEvents<T: Decodable & Sendable>(of type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder(),
                                                        terminator: String? = "[DONE]") -> DecodedEvents<T> {
        DecodedEvents(events: events(), decoder: LockedValue(decoder), terminator: terminator)
    }

    /// The events of an ``EventStreamRequest`` (from ``EventStreamRequest/events()``).
    public struct Events: AsyncSequence, Sendable {
        /// One event.
        public typealias Element = ServerSentEvent

        let owner: EventStreamRequest

        /// Makes the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(driver: EventStreamDriver(owner: owner)) }

        /// Iterates the events.
        public struct Iterator: AsyncIteratorProtocol {
            let driver: EventStreamDriver

            /// The next event, `nil` at the end; throws why the stream failed.
            public mutating func next() async throws -> ServerSentEvent? { try await driver.next() }
        }
    }

    /// The data of each event decoded as JSON (from ``EventStreamRequest/decodingEvents(of:decoder:terminator:)``).
    public struct DecodedEvents<Value: Decodable & Sendable>: AsyncSequence, Sendable {
        /// One decoded event.
        public typealias Element = Value

        let events: Events
        /// `JSONDecoder` is not `Sendable`: kept behind a lock, used by one iterator.
        let decoder: LockedValue<JSONDecoder>
        let terminator: String?

        /// Makes the iterator.
        public func makeAsyncIterator() -> Iterator {
            Iterator(base: events.makeAsyncIterator(), owner: events.owner, decoder: decoder, terminator: terminator)
        }

        /// Iterates the values.
        public struct Iterator: AsyncIteratorProtocol {
            var base: Events.Iterator
            let owner: EventStreamRequest
            let decoder: LockedValue<JSONDecoder>
            let terminator: String?
            var ended = false

            /// The next value, `nil` at the terminator or the end; throws why the stream failed or
            /// a decoding failure.
            public mutating func next() async throws -> Value? {
                guard !ended, let event = try await base.next() else { return nil }
                if let terminator, event.data == terminator {
                    ended = true
                    owner.cancel()
                    // Until the cancelled connection ends, so its Timeline and metrics are recorded.
                    while (try? await base.next()) != nil {}
                    return nil
                }
                let decoded = decoder.withLock { decoder in
                    Result { try decoder.decode(Value.self, from: Data(event.data.utf8)) }
                }
                switch decoded {
                case let .success(value):
                    return value
                case let .failure(error):
                    ended = true
                    owner.cancel()
                    throw CurlfireError.responseSerializationFailed(reason: .decodingFailed(error: error))
                }
            }
        }
    }
}
