import Foundation
import FoundationNetworking

extension DownloadRequest {
    /// Delivers the unserialized response once, on `queue` (the session's `callbackQueue` when
    /// `nil`). Validators attached before this call decide its `error`.
    @discardableResult
    public func response(queue: DispatchQueue? = nil,
                         completionHandler: @escaping @Sendable (DefaultDownloadResponse) -> Void) -> Self {
        let validators = validators
        let queue = queue ?? core.session.callbackQueue
        core.transfer.addHandler(start: core.session.startRequestsImmediately, queue: queue) { outcome in
            let files = outcome.download ?? DownloadFiles()
            let error = outcome.error
                ?? DownloadValidator.run(validators, request: outcome.request, response: outcome.lazyResponse, files: files)
            let response = DefaultDownloadResponse(
                request: outcome.request, lazyResponse: outcome.lazyResponse, temporaryURL: files.temporaryURL,
                destinationURL: files.destinationURL, resumeData: files.resumeData, error: error,
                timeline: outcome.timeline, metrics: outcome.metrics, allMetrics: outcome.allMetrics)
            completionHandler(response)
        }
        return self
    }

    /// Validates, then serializes the downloaded file with `responseSerializer` off the engine
    /// thread, and delivers the result once, on `queue` (the session's `callbackQueue` when `nil`).
    @discardableResult
    public func response<Serializer: DownloadResponseSerializerProtocol>(
        queue: DispatchQueue? = nil,
        responseSerializer: Serializer,
        completionHandler: @escaping @Sendable (DownloadResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        let queue = queue ?? core.session.callbackQueue
        addSerializingHandler(responseSerializer, queue: queue, deliver: completionHandler)
        return self
    }

    /// Attaches a handler that validates and serializes on `queue`, then passes the response to `deliver` there.
    func addSerializingHandler<Serializer: DownloadResponseSerializerProtocol>(
        _ serializer: Serializer,
        queue: DispatchQueue,
        deliver: @escaping @Sendable (DownloadResponse<Serializer.SerializedObject>) -> Void
    ) {
        let produce = makeResponseProducer(serializer)
        guard let serializationQueue = core.session.serializationQueue else {
            return core.transfer.addHandler(start: core.session.startRequestsImmediately, queue: queue) { deliver(produce($0)) }
        }
        // Serialize there, then deliver on the handler's queue (SessionManager.serializationQueue).
        core.transfer.addHandler(start: core.session.startRequestsImmediately, queue: serializationQueue) { outcome in
            let response = UncheckedSendable(value: produce(outcome)) // handed over once, not shared
            queue.async { deliver(response.value) }
        }
    }

    /// Validation with this value's validators plus serialization of the file: outcome → response.
    /// Runs off the engine thread (on a handler's queue, or in an awaiting task).
    func makeResponseProducer<Serializer: DownloadResponseSerializerProtocol>(_ serializer: Serializer)
        -> @Sendable (TransferOutcome) -> DownloadResponse<Serializer.SerializedObject> {
        let validators = validators
        return { outcome in
            let files = outcome.download ?? DownloadFiles()
            let error = outcome.error
                ?? DownloadValidator.run(validators, request: outcome.request, response: outcome.lazyResponse, files: files)
            let result = serializer.serializeResponse(outcome.request, outcome.response,
                                                      files.destinationURL ?? files.temporaryURL, error)
            let timeline = outcome.timeline.serialized(at: Date.timeIntervalSinceReferenceDate)
            return DownloadResponse(request: outcome.request, lazyResponse: outcome.lazyResponse,
                                    temporaryURL: files.temporaryURL, destinationURL: files.destinationURL,
                                    resumeData: files.resumeData, result: result, timeline: timeline,
                                    metrics: outcome.metrics, allMetrics: outcome.allMetrics)
        }
    }

    /// Delivers the downloaded file's bytes (read into memory: for files you mean to hold in memory).
    @discardableResult
    public func responseData(queue: DispatchQueue? = nil,
                             completionHandler: @escaping @Sendable (DownloadResponse<Data>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DownloadResponseSerializer.data(), completionHandler: completionHandler)
    }

    /// Delivers the downloaded file as a `String`: in `encoding` if given, else the response's
    /// charset, else ISO-8859-1.
    @discardableResult
    public func responseString(queue: DispatchQueue? = nil, encoding: String.Encoding? = nil,
                               completionHandler: @escaping @Sendable (DownloadResponse<String>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DownloadResponseSerializer.string(encoding: encoding),
                 completionHandler: completionHandler)
    }

    /// Delivers the downloaded file parsed by `JSONSerialization`.
    @discardableResult
    public func responseJSON(queue: DispatchQueue? = nil, options: JSONSerialization.ReadingOptions = .allowFragments,
                             completionHandler: @escaping @Sendable (DownloadResponse<Any>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DownloadResponseSerializer.json(options: options),
                 completionHandler: completionHandler)
    }

    /// Delivers the downloaded file parsed by `PropertyListSerialization`.
    @discardableResult
    public func responsePropertyList(queue: DispatchQueue? = nil, options: PropertyListSerialization.ReadOptions = [],
                                     completionHandler: @escaping @Sendable (DownloadResponse<Any>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DownloadResponseSerializer.propertyList(options: options),
                 completionHandler: completionHandler)
    }

    /// Delivers the downloaded file decoded as `type` with `decoder` (a fresh `JSONDecoder()` per response by default).
    @discardableResult
    public func responseDecodable<T: Decodable & SendableMetatype>(of type: T.Type = T.self, queue: DispatchQueue? = nil,
                                                                   decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
                                                                   completionHandler: @escaping @Sendable (DownloadResponse<T>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DownloadResponseSerializer<T>.decodable(of: type, decoder: decoder),
                 completionHandler: completionHandler)
    }
}
