import Foundation
import FoundationNetworking

/// The async view of a serialized data request: `await` its ``response``, ``result`` or ``value``.
///
/// Awaiting starts the transfer (whatever `startRequestsImmediately` says). Cancelling the
/// awaiting Swift task cancels the transfer, and the awaited response fails with
/// ``CurlfireError/explicitlyCancelled``. Every property can be awaited any number of times.
public struct DataTask<Value>: Sendable {
    private let request: DataRequest
    private let box: ResponseBox<DataResponse<Value>>

    init<Serializer: DataResponseSerializerProtocol>(request: DataRequest, serializer: Serializer)
    where Serializer.SerializedObject == Value {
        self.request = request
        let box = ResponseBox<DataResponse<Value>>()
        self.box = box
        request.addSerializingHandler(serializer, start: true) { response in box.fulfil(response) }
    }

    /// The whole response. Runs in the caller's isolation, so non-`Sendable` values (the `Any`
    /// of JSON) can be awaited from any actor.
    nonisolated(nonsending) public var response: DataResponse<Value> {
        get async {
            let request = request
            return await withTaskCancellationHandler {
                await box.value
            } onCancel: {
                request.cancel()
            }
        }
    }

    /// The result.
    nonisolated(nonsending) public var result: Result<Value, CurlfireError> {
        get async { await response.result }
    }

    /// The value, or the error thrown.
    nonisolated(nonsending) public var value: Value {
        get async throws { try await result.get() }
    }

    /// Cancels the transfer.
    public func cancel() { request.cancel() }
}

/// A value delivered once and awaited by any number of tasks.
final class ResponseBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func fulfil(_ value: Value) {
        lock.lock()
        stored = value
        let waiting = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in waiting { waiter.resume() }
    }

    nonisolated(nonsending) var value: Value {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if stored != nil {
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiters.append(continuation)
                    lock.unlock()
                }
            }
            return lock.withLock { stored! }
        }
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
