import Foundation
import FoundationNetworking

/// The connection loop behind ``EventStreamRequest/events()``: opens a connection, parses its
/// chunks into events as the consumer asks for them (so back-pressure reaches the socket), and
/// when it ends asks ``EventStreamReconnection`` what to do. Used by one iterator at a time.
final class EventStreamDriver {
    private struct Connection {
        let stream: StreamRequest
        let data: DataStream
        var chunks: DataStream.Iterator
        var headAccepted = false
    }

    private let owner: EventStreamRequest
    private var parser: ServerSentEventParser
    private var reconnection: EventStreamReconnection
    private var connection: Connection?
    private var events: [ServerSentEvent] = []
    private var nextEvent = 0
    private var outcome: Result<Void, CurlfireError>?
    private var started = false
    private var lastRetry: Int?

    init(owner: EventStreamRequest) {
        self.owner = owner
        parser = ServerSentEventParser(maximumEventSize: owner.configuration.maximumEventSize)
        reconnection = EventStreamReconnection(configuration: owner.configuration)
    }

    /// The next event; `nil` when the stream ended; throws why it failed.
    func next() async throws -> ServerSentEvent? {
        while true {
            if nextEvent < events.count {
                nextEvent += 1
                return events[nextEvent - 1]
            }
            if let outcome { return try outcome.map { nil }.get() }
            if connection == nil { open() } else { await receive() }
        }
    }

    private func open() {
        if !started {
            started = true
            guard owner.box.claim() else { return outcome = .failure(.eventStreamFailed(reason: .alreadyConsumed)) }
        }
        if owner.box.isCancelled || Task.isCancelled { return outcome = .failure(.explicitlyCancelled) }
        let stream: StreamRequest
        do {
            stream = try owner.openConnection(lastEventID: parser.lastEventID)
        } catch {
            return outcome = .failure(error as? CurlfireError ?? .createURLRequestFailed(error: error))
        }
        parser.startConnection()
        owner.box.begin(stream)
        let data = stream.streamingData()
        connection = Connection(stream: stream, data: data, chunks: data.makeAsyncIterator())
    }

    /// Takes the connection's next chunk, or its end.
    private func receive() async {
        guard var current = connection else { return }
        let chunk: Data?
        do {
            chunk = try await current.chunks.next()
        } catch {
            let failure = error as? CurlfireError ?? .explicitlyCancelled
            return await end(current, rejectedHead(of: current) ?? (EventStreamVerdict.end(for: failure), failure))
        }
        guard let chunk else {
            return await end(current, rejectedHead(of: current) ?? (.closed, nil))
        }
        if !current.headAccepted {
            if let rejection = rejectedHead(of: current) {
                current.stream.cancel()
                return await end(current, rejection)
            }
            current.headAccepted = true
            if let response = current.stream.receivedResponse { owner.box.accept(response) }
        }
        connection = current
        do {
            events = try parser.parse(chunk)
            nextEvent = 0
        } catch {
            current.stream.cancel()
            return await end(current, (.fatalFailure, error as? CurlfireError))
        }
        if let retry = parser.reconnectionTime, retry != lastRetry {
            lastRetry = retry
            reconnection.retryReceived(milliseconds: retry)
        }
        if !events.isEmpty { reconnection.eventDelivered() }
    }

    /// How the connection ends if its head is not an event stream's; `nil` when it is (or none came).
    private func rejectedHead(of connection: Connection) -> (EventStreamReconnection.End, CurlfireError?)? {
        guard !connection.headAccepted, let response = connection.stream.receivedResponse else { return nil }
        switch EventStreamVerdict.judge(response) {
        case .stream: return nil
        case .noContent: return (.noContent, nil)
        case .rejected: return (.fatalFailure, EventStreamVerdict.error(for: response))
        }
    }

    /// The connection ended: records it, then reconnects, finishes or fails.
    private func end(_ ended: Connection, _ cause: (end: EventStreamReconnection.End, error: CurlfireError?)) async {
        connection = nil
        parser.finish()
        owner.box.end(await ended.data.completion)
        let end = owner.box.isCancelled ? .cancelled : cause.end
        switch reconnection.connectionEnded(end, jitter: Double.random(in: 0...1)) {
        case let .reconnect(after: delay):
            if await !owner.box.wait(delay) { outcome = .failure(.explicitlyCancelled) }
        case .finish:
            outcome = .success(())
        case .fail:
            outcome = .failure(end == .cancelled ? .explicitlyCancelled : cause.error ?? .explicitlyCancelled)
        case let .giveUp(attempts):
            outcome = .failure(.eventStreamFailed(reason: .reconnectionLimitReached(attempts: attempts, lastError: cause.error)))
        }
    }
}
