import Foundation
import FoundationNetworking

/// A request whose response body is delivered chunk by chunk as it arrives, never collected:
/// to closures (``responseStream(queue:stream:)``) or as an `AsyncSequence` (``streamingData()``).
///
/// Back-pressure: when a consumer holds more than the request's buffer limit of chunks it has not
/// consumed yet, the transfer pauses (libcurl stops reading the socket) until it catches up, so a
/// slow consumer does not grow memory. A stream is never retried (its bytes may already have been
/// consumed) and redirects are followed by libcurl. Attach consumers before the body starts to
/// arrive: a consumer receives the chunks that arrive after it was attached.
public struct StreamRequest: Request {
    let core: RequestCore
    let buffer: StreamBuffer
    /// Validators captured by each consumer when it is attached (StreamRequest+Validation.swift).
    var validators: [StreamValidator] = []

    init(core: RequestCore, buffer: StreamBuffer) {
        self.core = core
        self.buffer = buffer
    }

    /// The request as sent (after adapters), or as built before it started.
    public var request: URLRequest? { core.transfer.request }
    /// The response, once the transfer finished.
    public var response: HTTPURLResponse? { core.transfer.response }
    /// The response whose body is streaming, as soon as its head has arrived (before the transfer
    /// ends), for the package's integrations: CurlfireOpenAPI's transport hands it over with the body.
    package var receivedResponse: HTTPURLResponse? { buffer.response }
    /// Always 0: streams are not retried.
    public var retryCount: Int { core.transfer.retryCount }
    /// The request's identity: the same for every copy of the value.
    public var id: UUID { core.transfer.id }
    /// Where the request is in its life: `.initialized`, `.resumed`, `.suspended`, `.cancelled`, `.finished`.
    public var state: RequestState { core.transfer.publicState }
    /// `"GET https://host/path (200)"`.
    public var description: String { core.description }
    /// The request as a runnable `curl` command line (credentials redacted).
    public var debugDescription: String { core.debugDescription }
    /// The request as a runnable `curl` command line.
    ///
    /// - Parameter redactingCredentials: Whether the password of `authenticate(user:password:)` or of
    ///   the URL, and the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `X-API-Key`,
    ///   are replaced by `***`. `true` by default, as in ``debugDescription``: pass `false` only where
    ///   the text stays private.
    public func cURLDescription(redactingCredentials: Bool = true) -> String {
        core.cURLDescription(redactingCredentials: redactingCredentials)
    }

    /// Cancels the transfer; consumers complete with ``CurlfireError/explicitlyCancelled``.
    @discardableResult public func cancel() -> Self { core.transfer.cancel(); return self }
    /// Pauses the transfer until `resume()`.
    @discardableResult public func suspend() -> Self { core.transfer.suspend(); return self }
    /// Starts the transfer, or continues it after `suspend()`.
    @discardableResult public func resume() -> Self { core.transfer.resume(); return self }

    /// One event of a stream: a chunk, or the completion.
    public struct Stream: Sendable {
        /// What happened.
        public enum Event: Sendable {
            /// A chunk of the body, in order.
            case stream(Data)
            /// The transfer is over; always the last event.
            case complete(Completion)
        }

        /// What happened.
        public let event: Event
        /// Cancels the transfer (from inside the closure, say).
        public let cancel: @Sendable () -> Void
    }

    /// The end of a stream: everything about the exchange except the body.
    public struct Completion: Sendable {
        /// The request sent (after adapters).
        public let request: URLRequest?
        /// The response, if one arrived.
        public let response: HTTPURLResponse?
        /// When each stage happened (serialization completes with the transfer).
        public let timeline: Timeline
        /// What libcurl measured.
        public let metrics: TransferMetrics?
        /// The transport error, cancellation or preparation failure, if any.
        public let error: CurlfireError?
    }

    /// Delivers every chunk, then the completion, to `stream` on `queue` (the session's
    /// `callbackQueue` by default; give a serial queue). A chunk counts as consumed when the
    /// closure returns for it, so a slow closure pauses the transfer. Starts the request
    /// (unless `startRequestsImmediately` is `false`).
    @discardableResult
    public func responseStream(queue: DispatchQueue? = nil, stream: @escaping @Sendable (Stream) -> Void) -> Self {
        let transfer = core.transfer
        let consumer = ClosureStreamConsumer(queue: queue ?? core.session.callbackQueue, buffer: buffer,
                                             cancel: { [weak transfer] in transfer?.cancel() }, validation: makeValidation(),
                                             closure: stream)
        buffer.add(consumer)
        // Inline: the consumer only dispatches the completion to its queue.
        transfer.addHandler(start: core.session.startRequestsImmediately, queue: nil) { outcome in
            consumer.finish(Self.completion(outcome))
        }
        return self
    }

    /// The body as an `AsyncSequence` of chunks, ending when the transfer does and throwing its
    /// error. Starts the request. Cancelling the iterating task, or abandoning the iteration before
    /// the end, cancels the transfer. A chunk counts as consumed when the iterator returns it.
    public func streamingData() -> DataStream {
        let consumer = AsyncStreamConsumer(buffer: buffer, validation: makeValidation())
        buffer.add(consumer)
        // Inline: the consumer only resumes its waiters.
        core.transfer.addHandler(start: true, queue: nil) { outcome in consumer.finish(Self.completion(outcome)) }
        return DataStream(consumer: consumer, transfer: core.transfer)
    }

    /// The validators of this value, for one consumer. The closures hold the transfer weakly: the
    /// consumers live in the buffer, which the transfer's definition holds (a cycle that leaked every
    /// stream whose consumer outlived it; LeakSanitizer, docs/Reliability.md "Leaks"). A running
    /// transfer is held by the engine; one that has ended has nothing to cancel.
    func makeValidation() -> StreamValidation {
        let transfer = core.transfer
        return StreamValidation(validators: validators, request: { [weak transfer] in transfer?.request },
                                cancel: { [weak transfer] in transfer?.cancel() })
    }

    static func completion(_ outcome: TransferOutcome) -> Completion {
        Completion(request: outcome.request, response: outcome.response, timeline: outcome.timeline,
                   metrics: outcome.metrics, error: outcome.error)
    }
}

extension SessionManager {
    /// Creates a stream request: the response body delivered chunk by chunk.
    ///
    /// - Parameters:
    ///   - url:                  The URL.
    ///   - method:               The method. `.get` by default.
    ///   - parameters:           Parameters to encode. `nil` by default.
    ///   - encoding:             How to encode them. `URLEncoding.default` by default.
    ///   - headers:              Headers, added to the session's defaults. `nil` by default.
    ///   - maximumBufferedBytes: How many received bytes a consumer may hold unconsumed before the
    ///                           transfer pauses. 1 MiB by default.
    public func streamRequest(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                              encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                              maximumBufferedBytes: Int = 1 << 20) -> StreamRequest {
        let built = Self.build { () throws -> URLRequest in
            try encoding.encode(try makeURLRequest(url, method: method, headers: headers, modifier: nil), with: parameters)
        }
        return streamRequest(built, maximumBufferedBytes: maximumBufferedBytes)
    }

    /// Creates a stream request from anything that produces a `URLRequest`.
    public func streamRequest(_ urlRequest: URLRequestConvertible, maximumBufferedBytes: Int = 1 << 20) -> StreamRequest {
        streamRequest(Self.build { try urlRequest.asURLRequest() }, maximumBufferedBytes: maximumBufferedBytes)
    }

    /// A stream request whose request body is the chunks of `body`, streamed as the sequence
    /// produces them (for the package's integrations: CurlfireOpenAPI's transport).
    ///
    /// - Parameters:
    ///   - urlRequest:           The request.
    ///   - body:                 The chunks of the request body, iterated once.
    ///   - length:               The body's length in bytes, if known (else chunked on HTTP/1.1).
    ///   - maximumBufferedBytes: The back-pressure limit of the response stream.
    package func streamRequest<Body: AsyncSequence & Sendable>(
        _ urlRequest: URLRequestConvertible, streamingBody body: Body, length: Int64?, maximumBufferedBytes: Int = 1 << 20
    ) -> StreamRequest where Body.Element == Data {
        streamRequest(Self.build { try urlRequest.asURLRequest() }, maximumBufferedBytes: maximumBufferedBytes,
                      body: .stream(BodyStream(producer: .sequence(Self.feed(body)), length: length)))
    }

    /// Whether the session retries failed requests (a retrier or an interceptor is set).
    package var retriesRequests: Bool { !sessionRetriers.isEmpty }

    private func streamRequest(_ built: Result<URLRequest, CurlfireError>, maximumBufferedBytes: Int,
                               body: UploadBody? = nil) -> StreamRequest {
        let buffer = StreamBuffer(highWater: maximumBufferedBytes)
        var definition = dataDefinition(built)
        if let body { definition.body = body }
        definition.retriers = []
        definition.redirectHandler = nil
        definition.makeSink = { StreamSink(buffer: buffer) }
        definition.makeRequestValue = { StreamRequest(core: $0, buffer: buffer) }
        let core = RequestCore(session: self, definition: definition, startsOnRelease: false)
        buffer.transfer = core.transfer
        return StreamRequest(core: core, buffer: buffer)
    }
}

/// Creates a stream request on ``SessionManager/default``; see
/// ``SessionManager/streamRequest(_:method:parameters:encoding:headers:maximumBufferedBytes:)``.
public func streamRequest(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                          encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                          maximumBufferedBytes: Int = 1 << 20) -> StreamRequest {
    SessionManager.default.streamRequest(url, method: method, parameters: parameters, encoding: encoding,
                                         headers: headers, maximumBufferedBytes: maximumBufferedBytes)
}

/// Creates a stream request from a `URLRequestConvertible` on ``SessionManager/default``.
public func streamRequest(_ urlRequest: URLRequestConvertible, maximumBufferedBytes: Int = 1 << 20) -> StreamRequest {
    SessionManager.default.streamRequest(urlRequest, maximumBufferedBytes: maximumBufferedBytes)
}
