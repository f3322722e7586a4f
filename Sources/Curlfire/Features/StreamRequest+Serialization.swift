import Foundation
import FoundationNetworking

extension StreamRequest {
    /// One event of a stream of values (text, or decoded lines): a value or its error, or the end.
    public struct SerializedStream<Value: Sendable>: Sendable {
        /// What happened.
        public enum Event: Sendable {
            /// The next value, or why one line or chunk could not become one.
            case stream(Result<Value, CurlfireError>)
            /// The transfer is over; always the last event.
            case complete(Completion)
        }

        /// What happened.
        public let event: Event
        /// Cancels the transfer.
        public let cancel: @Sendable () -> Void
    }

    /// Delivers the body as text as it arrives (UTF-8; a character split across chunks waits for
    /// its last byte), then the completion, to `stream` on `queue`, as Alamofire 5's
    /// `responseStreamString`. Starts the request.
    ///
    /// - Parameters:
    ///   - queue:  Where `stream` runs; give a serial queue. `nil` by default: the session's callback queue.
    ///   - stream: Receives each piece of text, then the completion.
    /// - Returns:  The request.
    @discardableResult
    public func responseStreamString(queue: DispatchQueue? = nil,
                                     stream: @escaping @Sendable (SerializedStream<String>) -> Void) -> Self {
        let decoder = LockedValue(UTF8ChunkDecoder())
        return responseStream(queue: queue) { raw in
            switch raw.event {
            case let .stream(chunk):
                let text = decoder.withLock { $0.decode(chunk) }
                if !text.isEmpty { stream(SerializedStream(event: .stream(.success(text)), cancel: raw.cancel)) }
            case let .complete(completion):
                let rest = decoder.withLock { $0.finish() }
                if !rest.isEmpty { stream(SerializedStream(event: .stream(.success(rest)), cancel: raw.cancel)) }
                stream(SerializedStream(event: .complete(completion), cancel: raw.cancel))
            }
        }
    }

    /// Delivers each line of a newline-delimited JSON body decoded as `type`, then the completion,
    /// to `stream` on `queue`, as Alamofire 5's `responseStreamDecodable(of:)`. A line that does not
    /// decode is delivered as ``CurlfireError/ResponseSerializationFailureReason/decodingFailed(error:)``
    /// and the stream goes on. Starts the request.
    ///
    /// - Parameters:
    ///   - type:    The type of each line. Inferred by default.
    ///   - queue:   Where `stream` runs; give a serial queue. `nil` by default: the session's callback queue.
    ///   - decoder: Makes the decoder. A new `JSONDecoder()` by default.
    ///   - stream:  Receives each value (or its error), then the completion.
    /// - Returns:   The request.
    @discardableResult
    public func responseStreamDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self, queue: DispatchQueue? = nil,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        stream: @escaping @Sendable (SerializedStream<T>) -> Void
    ) -> Self {
        let splitter = LockedValue(LineSplitter())
        let deliver = { @Sendable (line: Data, cancel: @escaping @Sendable () -> Void) in
            stream(SerializedStream(event: .stream(Self.decode(T.self, line, decoder: decoder())), cancel: cancel))
        }
        return responseStream(queue: queue) { raw in
            switch raw.event {
            case let .stream(chunk):
                for line in splitter.withLock({ $0.lines(chunk) }) { deliver(line, raw.cancel) }
            case let .complete(completion):
                if let last = splitter.withLock({ $0.finish() }) { deliver(last, raw.cancel) }
                stream(SerializedStream(event: .complete(completion), cancel: raw.cancel))
            }
        }
    }

    /// The body as an `AsyncSequence` of text (UTF-8, never splitting a character), ending when the
    /// transfer does and throwing its error, as Alamofire 5's `streamingStrings()`. Starts the
    /// request; cancelling the iterating task cancels it.
    ///
    /// - Returns: The text stream.
    public func streamingStrings() -> StringStream { StringStream(base: streamingData()) }

    /// The lines of a newline-delimited JSON body, each decoded as `type`, as an `AsyncSequence`,
    /// as Alamofire 5's `streamingDecodables(_:)`. A line that does not decode ends the iteration
    /// with ``CurlfireError/ResponseSerializationFailureReason/decodingFailed(error:)`` (and cancels
    /// the transfer). Starts the request; cancelling the iterating task cancels it.
    ///
    /// - Parameters:
    ///   - type:    The type of each line. Inferred by default.
    ///   - decoder: Makes the decoder. A new `JSONDecoder()` by default.
    /// - Returns:   The stream of values.
    public func streamingDecodables<T: Decodable & Sendable>(
        _ type: T.Type = T.self, decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> DecodableStream<T> {
        DecodableStream(base: streamingData(), decoder: decoder)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ line: Data, decoder: JSONDecoder) -> Result<T, CurlfireError> {
        do {
            return .success(try decoder.decode(T.self, from: line))
        } catch {
            return .failure(.responseSerializationFailed(reason: .decodingFailed(error: error)))
        }
    }
}

/// The body of a ``StreamRequest`` as text (from ``StreamRequest/streamingStrings()``). Iterate it once.
public struct StringStream: AsyncSequence, Sendable {
    /// Pieces of text, in order.
    public typealias Element = String

    let base: DataStream

    /// The completion (response, Timeline, metrics, error), once the transfer is over.
    public var completion: StreamRequest.Completion {
        get async { await base.completion }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    /// Iterates the text.
    public struct Iterator: AsyncIteratorProtocol {
        var base: DataStream.Iterator
        var decoder = UTF8ChunkDecoder()
        var ended = false

        /// The next piece of text, `nil` at the end; throws the transfer's error.
        public mutating func next() async throws -> String? {
            while !ended {
                guard let chunk = try await base.next() else {
                    ended = true
                    let rest = decoder.finish()
                    return rest.isEmpty ? nil : rest
                }
                let text = decoder.decode(chunk)
                if !text.isEmpty { return text }
            }
            return nil
        }
    }
}

/// The lines of a newline-delimited JSON body, decoded (from ``StreamRequest/streamingDecodables(_:decoder:)``).
/// Iterate it once.
public struct DecodableStream<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// One decoded line.
    public typealias Element = Value

    let base: DataStream
    let decoder: @Sendable () -> JSONDecoder

    /// The completion (response, Timeline, metrics, error), once the transfer is over.
    public var completion: StreamRequest.Completion {
        get async { await base.completion }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), decoder: decoder) }

    /// Iterates the values.
    public struct Iterator: AsyncIteratorProtocol {
        var base: DataStream.Iterator
        let decoder: @Sendable () -> JSONDecoder
        var splitter = LineSplitter()
        var lines: [Data] = []
        var ended = false

        init(base: DataStream.Iterator, decoder: @escaping @Sendable () -> JSONDecoder) {
            self.base = base
            self.decoder = decoder
        }

        /// The next value, `nil` at the end; throws the transfer's error or a decoding failure.
        public mutating func next() async throws -> Value? {
            while lines.isEmpty, !ended {
                if let chunk = try await base.next() {
                    lines = splitter.lines(chunk)
                } else {
                    ended = true
                    lines = splitter.finish().map { [$0] } ?? []
                }
            }
            guard !lines.isEmpty else { return nil }
            let line = lines.removeFirst()
            switch StreamRequest.decode(Value.self, line, decoder: decoder()) {
            case let .success(value):
                return value
            case let .failure(error):
                base.cancelTransfer()
                ended = true
                lines.removeAll()
                throw error
            }
        }
    }
}
