import Foundation
import FoundationNetworking

/// The async view of a serialized data request: `await` its ``response``, ``result`` or ``value``.
///
/// Awaiting starts the transfer (whatever `startRequestsImmediately` says). Cancelling the
/// awaiting Swift task cancels the transfer, and the awaited response fails with
/// ``CurlfireError/explicitlyCancelled``. Every property can be awaited any number of times.
///
/// The outcome is handed straight from the engine to the awaiting task; validation and
/// serialization then run in the awaiting task, once, however many times it is awaited.
public struct DataTask<Value>: Sendable {
    private let box: AwaitedResponse<DataResponse<Value>>

    init<Serializer: DataResponseSerializerProtocol>(request: DataRequest, serializer: Serializer)
    where Serializer.SerializedObject == Value {
        box = AwaitedDataResponse(request: request, serializer: serializer)
    }

    /// The whole response. Runs in the caller's isolation, so non-`Sendable` values (the `Any`
    /// of JSON) can be awaited from any actor.
    nonisolated(nonsending) public var response: DataResponse<Value> {
        get async { await box.cancellableValue() }
    }

    /// The result.
    nonisolated(nonsending) public var result: Result<Value, CurlfireError> {
        get async { await response.result }
    }

    /// The value, or the error thrown: always a ``CurlfireError`` (typed throws), so a `catch`
    /// around it alone binds `error` as a ``CurlfireError`` without a cast.
    nonisolated(nonsending) public var value: Value {
        get async throws(CurlfireError) { try await result.get() }
    }

    /// Cancels the transfer.
    public func cancel() { box.cancel() }
}

/// A transfer's outcome, handed over once by an inline handler, and the response made from it on
/// first await (validation and serialization run in the awaiting task, never on the engine thread).
/// A subclass says how a response is made (``produce(_:)``): ``AwaitedDataResponse`` keeps the
/// validators and serializer itself, so a data task makes no producer closure (one allocation per request).
/// `@unchecked Sendable`: `outcome`, `response` and the waiters are read and written under `lock` only;
/// `transfer` and the subclasses' stored properties are constants.
class AwaitedResponse<Response>: @unchecked Sendable {
    /// One of the shared ``StripedLocks`` (a lock of its own was one more allocation per request):
    /// only this object's fields are touched under it, and nothing is called out while it is held.
    private var lock: MutexReference { StripedLocks.lock(for: self) }
    @exclusivity(unchecked) private var outcome: TransferOutcome?
    @exclusivity(unchecked) private var response: Response?
    /// The tasks waiting for the outcome: the first in a slot of its own, since nearly every
    /// response is awaited once and an array would be one more allocation per request. Each
    /// continuation is resumed exactly once: by ``fulfil(_:)`` after it was stored under the lock,
    /// or at once when the outcome was already there; so the unchecked kind (no canary object) is safe.
    @exclusivity(unchecked) private var firstWaiter: UnsafeContinuation<Void, Never>?
    @exclusivity(unchecked) private var moreWaiters: [UnsafeContinuation<Void, Never>] = []
    let transfer: Transfer

    /// Attaches the inline handler to `transfer` and starts it (a subclass sets its own properties first).
    init(transfer: Transfer) {
        self.transfer = transfer
        transfer.addHandler(start: true, queue: nil) { [self] outcome in fulfil(outcome) }
    }

    /// Validation and serialization: the response made from `outcome`. Every subclass overrides it;
    /// this class is never made itself.
    func produce(_ outcome: TransferOutcome) -> Response {
        preconditionFailure("AwaitedResponse.produce(_:) is overridden by every subclass")
    }

    /// The response; cancelling the awaiting task cancels the transfer.
    ///
    /// `@_specialize`: for `serializingData()`'s `DataResponse<Data>` (the usual await) this runs a
    /// copy compiled for that type, reached after one type check. Generic, it and ``madeResponse()``
    /// looked up the metadata of `Response?` and its parts at run time on every await
    /// (`swift_getGenericMetadata`; docs/Performance.md, "fifteenth session").
    @_specialize(where Response == DataResponse<Data>)
    nonisolated(nonsending) func cancellableValue() async -> Response {
        let transfer = transfer
        return await withTaskCancellationHandler {
            await value
        } onCancel: {
            transfer.cancel()
        }
    }

    /// Cancels the transfer.
    func cancel() { transfer.cancel() }

    private func fulfil(_ outcome: TransferOutcome) {
        lock.lock()
        self.outcome = outcome
        let first = firstWaiter
        let more = moreWaiters
        firstWaiter = nil
        moreWaiters = []
        lock.unlock()
        // On the engine thread, the awaiting tasks are resumed at the end of its loop turn, with the
        // others the turn released (Engine.resume(_:)).
        let engine = transfer.session.engine
        if let first { engine.resume(first) }
        for waiter in more { engine.resume(waiter) }
    }

    /// The response, once the transfer has finished; made on the first call.
    nonisolated(nonsending) var value: Response {
        get async {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                lock.lock()
                if outcome != nil {
                    lock.unlock()
                    continuation.resume()
                } else {
                    if firstWaiter == nil { firstWaiter = continuation } else { moreWaiters.append(continuation) }
                    lock.unlock()
                }
            }
            return madeResponse()
        }
    }

    /// The cached response, or one made now — outside the lock (a serializer is user code). Two
    /// tasks awaiting at the same moment may both make one; the first stored is kept.
    /// (Locked by hand rather than in `withLock` closures: in this generic class, a closure returning
    /// a tuple of `Response?` and the outcome made the tuple's type metadata at run time on every call.)
    private func madeResponse() -> Response {
        lock.lock()
        if let response {
            lock.unlock()
            return response
        }
        let outcome = self.outcome!
        lock.unlock()
        let made = produce(outcome)
        lock.lock()
        defer { lock.unlock() }
        if let response { return response }
        response = made
        return made
    }
}

/// A data task's awaited response: its validators and serializer are stored here, not captured by a
/// producer closure. (`@unchecked Sendable` as its superclass; its own properties are constants.)
final class AwaitedDataResponse<Serializer: DataResponseSerializerProtocol>:
    AwaitedResponse<DataResponse<Serializer.SerializedObject>>, @unchecked Sendable {
    private let validators: DataValidators
    private let serializer: Serializer

    /// Attaches to `request`'s transfer with its current validators.
    init(request: DataRequest, serializer: Serializer) {
        validators = request.validators
        self.serializer = serializer
        super.init(transfer: request.core.transfer)
    }

    /// Validation and serialization, compiled for `serializingData()`'s serializer as well
    /// (``AwaitedResponse/cancellableValue()``).
    @_specialize(where Serializer == DataResponseSerializer<Data>)
    override func produce(_ outcome: TransferOutcome) -> DataResponse<Serializer.SerializedObject> {
        DataResponseAssembly.makeResponse(outcome, validators: validators, transfer: transfer, serializer: serializer)
    }
}

/// An awaited response made by a closure (a download task's). (`@unchecked Sendable` as its
/// superclass; `producer` is a constant.)
final class AwaitedProducedResponse<Response>: AwaitedResponse<Response>, @unchecked Sendable {
    private let producer: @Sendable (TransferOutcome) -> Response

    /// Attaches to `transfer`; `producer` makes the response.
    init(transfer: Transfer, producer: @escaping @Sendable (TransferOutcome) -> Response) {
        self.producer = producer
        super.init(transfer: transfer)
    }

    override func produce(_ outcome: TransferOutcome) -> Response {
        producer(outcome)
    }
}

extension DataTransferRequest {
    /// Awaits the body as `Data`.
    public func serializingData() -> DataTask<Data> {
        DataTask(request: _dataRequest, serializer: DataResponseSerializer.data())
    }

    /// Awaits the body as a `String` (see ``responseString(queue:encoding:completionHandler:)``).
    public func serializingString(encoding: String.Encoding? = nil) -> DataTask<String> {
        DataTask(request: _dataRequest, serializer: DataResponseSerializer.string(encoding: encoding))
    }

    /// Awaits the body parsed by `JSONSerialization`.
    public func serializingJSON(options: JSONSerialization.ReadingOptions = .allowFragments) -> DataTask<Any> {
        DataTask(request: _dataRequest, serializer: DataResponseSerializer.json(options: options))
    }

    /// Awaits the body decoded as `type`.
    public func serializingDecodable<T: Decodable & SendableMetatype>(_ type: T.Type = T.self,
                                                   decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) -> DataTask<T> {
        DataTask(request: _dataRequest, serializer: DataResponseSerializer<T>.decodable(of: type, decoder: decoder))
    }

    /// Awaits a response serialized by `serializer`.
    public func serializingResponse<Serializer: DataResponseSerializerProtocol>(using serializer: Serializer)
        -> DataTask<Serializer.SerializedObject> {
        DataTask(request: _dataRequest, serializer: serializer)
    }
}
