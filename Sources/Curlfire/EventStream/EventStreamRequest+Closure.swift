import Foundation
import FoundationNetworking

extension EventStreamRequest {
    /// What ``EventStreamRequest/streamEvents(queue:handler:)`` delivers: an event, or the end.
    public struct Stream: Sendable {
        /// What happened.
        public enum Event: Sendable {
            /// The next event, in order.
            case event(ServerSentEvent)
            /// The stream is over; always the last, delivered once.
            case complete(Completion)
        }

        /// What happened.
        public let event: Event
        /// Ends the stream (from inside the handler, say).
        public let cancel: @Sendable () -> Void
    }

    /// The end of an event stream.
    public struct Completion: Sendable {
        /// Every connection the stream made, in order, with its request, response, ``Timeline``,
        /// ``TransferMetrics`` and error.
        public let connections: [StreamRequest.Completion]
        /// Why the stream failed; `nil` when the server ended it (HTTP 204, or a closed connection
        /// when reconnection is off).
        public let error: CurlfireError?
        /// The last connection's response.
        public var response: HTTPURLResponse? { connections.last?.response }
    }

    /// Delivers every event, then the completion, to `handler` on `queue`. An event counts as
    /// consumed when the handler returns for it, so a slow handler pauses the connection. Opens
    /// the first connection at once.
    ///
    /// - Parameters:
    ///   - queue:   Where `handler` runs. `nil` by default: the session's `callbackQueue`.
    ///   - handler: Called once per event, then once with the completion.
    /// - Returns:   The request.
    @discardableResult
    public func streamEvents(queue: DispatchQueue? = nil, handler: @escaping @Sendable (Stream) -> Void) -> Self {
        let queue = queue ?? session.callbackQueue
        let events = events()
        let box = box
        let cancel: @Sendable () -> Void = { box.cancel() }
        Task {
            var failure: CurlfireError?
            do {
                for try await event in events {
                    await Self.deliver(Stream(event: .event(event), cancel: cancel), to: handler, on: queue)
                }
            } catch {
                failure = error as? CurlfireError ?? .explicitlyCancelled
            }
            let completion = Completion(connections: box.connections, error: failure)
            await Self.deliver(Stream(event: .complete(completion), cancel: cancel), to: handler, on: queue)
        }
        return self
    }

    private static func deliver(_ stream: Stream, to handler: @escaping @Sendable (Stream) -> Void,
                                on queue: DispatchQueue) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                handler(stream)
                continuation.resume()
            }
        }
    }
}
