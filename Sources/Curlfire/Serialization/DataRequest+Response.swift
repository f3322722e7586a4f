import Foundation
import FoundationNetworking

extension DataTransferRequest {
    /// Delivers the unserialized response once, on `queue` (the session's `callbackQueue` when
    /// `nil`). Validators attached before this call decide its `error`.
    @discardableResult
    public func response(queue: DispatchQueue? = nil,
                         completionHandler: @escaping @Sendable (DefaultDataResponse) -> Void) -> Self {
        let validators = _dataRequest.validators
        let queue = queue ?? _dataRequest.core.session.callbackQueue
        let transfer = _dataRequest.core.transfer
        transfer.addQueuedHandler(start: _dataRequest.core.session.startRequestsImmediately, queue: queue) {
            let outcome = transfer.publishedOutcome
            let head = outcome.head, lazyResponse = outcome.lazyResponse, data = outcome.data // each read once
            let error = outcome.error
                ?? ResponseValidator.run(validators, request: head, response: lazyResponse, data: data)
            let response = DefaultDataResponse(head: head, lazyResponse: lazyResponse, data: data,
                                               error: error, timeline: outcome.timeline, metrics: outcome.metrics,
                                               allMetrics: outcome.allMetrics, cacheStatus: outcome.cacheStatus)
            transfer.emitParsed(response)
            completionHandler(response)
        }
        return self
    }

    /// Validates and serializes the response with `responseSerializer` on `queue` (the session's
    /// `callbackQueue` when `nil`), never on the engine thread, then delivers it there, once.
    @discardableResult
    public func response<Serializer: DataResponseSerializerProtocol>(
        queue: DispatchQueue? = nil,
        responseSerializer: Serializer,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.SerializedObject>) -> Void
    ) -> Self {
        let queue = queue ?? _dataRequest.core.session.callbackQueue
        addSerializingHandler(responseSerializer, queue: queue, deliver: completionHandler)
        return self
    }

    /// Attaches a handler that validates and serializes on `queue`, then passes the response to `deliver` there.
    func addSerializingHandler<Serializer: DataResponseSerializerProtocol>(
        _ serializer: Serializer,
        queue: DispatchQueue,
        deliver: @escaping @Sendable (DataResponse<Serializer.SerializedObject>) -> Void
    ) {
        let session = _dataRequest.core.session
        guard let serializationQueue = session.serializationQueue else {
            // One closure over what it needs, not one around the producer's: a context fewer per request;
            // it reads the outcome itself, so its hand-off to `queue` makes no closure either.
            let validators = _dataRequest.validators
            let transfer = _dataRequest.core.transfer
            return transfer.addQueuedHandler(start: session.startRequestsImmediately, queue: queue) {
                deliver(DataResponseAssembly.makeResponse(transfer.publishedOutcome, validators: validators,
                                                          transfer: transfer, serializer: serializer))
            }
        }
        let produce = makeResponseProducer(serializer)
        // Serialize there, then deliver on the handler's queue (SessionManager.serializationQueue).
        _dataRequest.core.transfer.addHandler(start: session.startRequestsImmediately, queue: serializationQueue) { outcome in
            let response = UncheckedSendable(value: produce(outcome)) // handed over once, not shared
            queue.async { deliver(response.value) }
        }
    }

    /// Validation with this value's validators plus serialization: outcome → response. Runs off the
    /// engine thread (on a handler's queue, or in an awaiting task).
    func makeResponseProducer<Serializer: DataResponseSerializerProtocol>(_ serializer: Serializer)
        -> @Sendable (TransferOutcome) -> DataResponse<Serializer.SerializedObject> {
        let validators = _dataRequest.validators
        let transfer = _dataRequest.core.transfer
        return { outcome in
            DataResponseAssembly.makeResponse(outcome, validators: validators, transfer: transfer, serializer: serializer)
        }
    }

    /// Delivers the body as `Data`. An empty body is a success only for 204, 205 and `HEAD`.
    @discardableResult
    public func responseData(queue: DispatchQueue? = nil,
                             completionHandler: @escaping @Sendable (DataResponse<Data>) -> Void) -> Self {
        let session = _dataRequest.core.session
        let queue = queue ?? session.callbackQueue
        guard session.serializationQueue == nil else {
            return response(queue: queue, responseSerializer: DataResponseSerializer.data(), completionHandler: completionHandler)
        }
        // What `addSerializingHandler` does, with the handler's concrete type: handed to that generic
        // function, `completionHandler` was wrapped in a reabstraction thunk, one allocation per request.
        let validators = _dataRequest.validators
        let transfer = _dataRequest.core.transfer
        let serializer = DataResponseSerializer.data()
        transfer.addQueuedHandler(start: session.startRequestsImmediately, queue: queue) {
            completionHandler(DataResponseAssembly.makeResponse(transfer.publishedOutcome, validators: validators,
                                                                transfer: transfer, serializer: serializer))
        }
        return self
    }

    /// Delivers the body as a `String`: in `encoding` if given, else the response's charset, else ISO-8859-1.
    @discardableResult
    public func responseString(queue: DispatchQueue? = nil, encoding: String.Encoding? = nil,
                               completionHandler: @escaping @Sendable (DataResponse<String>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer.string(encoding: encoding),
                 completionHandler: completionHandler)
    }

    /// Delivers the body parsed by `JSONSerialization` (`NSNull()` for an allowed empty body).
    @discardableResult
    public func responseJSON(queue: DispatchQueue? = nil, options: JSONSerialization.ReadingOptions = .allowFragments,
                             completionHandler: @escaping @Sendable (DataResponse<Any>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer.json(options: options),
                 completionHandler: completionHandler)
    }

    /// Delivers the body parsed by `PropertyListSerialization`.
    @discardableResult
    public func responsePropertyList(queue: DispatchQueue? = nil, options: PropertyListSerialization.ReadOptions = [],
                                     completionHandler: @escaping @Sendable (DataResponse<Any>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer.propertyList(options: options),
                 completionHandler: completionHandler)
    }

    /// Delivers the body decoded as `type` with `decoder` (a fresh `JSONDecoder()` per response by default).
    @discardableResult
    public func responseDecodable<T: Decodable & SendableMetatype>(of type: T.Type = T.self, queue: DispatchQueue? = nil,
                                                decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
                                                completionHandler: @escaping @Sendable (DataResponse<T>) -> Void) -> Self {
        response(queue: queue, responseSerializer: DataResponseSerializer<T>.decodable(of: type, decoder: decoder),
                 completionHandler: completionHandler)
    }
}

/// Validation plus serialization, outcome → response: what a data request's response handlers and
/// awaiting tasks deliver.
///
/// Not a member of `DataTransferRequest`'s extension: a static there is generic over `Self` too, and
/// the callers (the extension's methods, unspecialized across the module boundary) then ran it
/// unspecialized, building `DataResponse<Value>`'s metadata at run time on every response
/// (`swift_getGenericMetadata`, 1.5–2 % of a sequential request's CPU). Generic over the serializer
/// only, it is specialized for the concrete serializer each caller passes.
enum DataResponseAssembly {
    /// Validates `outcome` with `validators` and serializes it: what a response handler delivers.
    static func makeResponse<Serializer: DataResponseSerializerProtocol>(
        _ outcome: TransferOutcome, validators: DataValidators, transfer: Transfer, serializer: Serializer
    ) -> DataResponse<Serializer.SerializedObject> {
        // Each field read once: every read of the outcome's box copies (retains) the field anew.
        let head = outcome.head, lazyResponse = outcome.lazyResponse, data = outcome.data
        let error = outcome.error
            ?? ResponseValidator.run(validators, request: head, response: lazyResponse, data: data)
        let result = serializer.serialize(request: head, head: lazyResponse, data: data, error: error)
        let timeline = outcome.timeline.serialized(at: Date.timeIntervalSinceReferenceDate)
        let response = DataResponse(head: head, lazyResponse: lazyResponse, data: data,
                                    result: result, timeline: timeline, metrics: outcome.metrics,
                                    allMetrics: outcome.allMetrics, cacheStatus: outcome.cacheStatus)
        transfer.emitParsed(response)
        return response
    }
}
