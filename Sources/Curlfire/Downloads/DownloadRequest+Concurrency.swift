import Foundation
import FoundationNetworking

/// The async view of a serialized download: `await` its ``response``, ``result`` or ``value``.
///
/// Awaiting starts the transfer (whatever `startRequestsImmediately` says). Cancelling the
/// awaiting Swift task cancels the transfer: the response fails with
/// ``CurlfireError/explicitlyCancelled`` and carries resume data when the server allows it.
/// Every property can be awaited any number of times.
public struct DownloadTask<Value>: Sendable {
    private let box: AwaitedResponse<DownloadResponse<Value>>

    init<Serializer: DownloadResponseSerializerProtocol>(request: DownloadRequest, serializer: Serializer)
    where Serializer.SerializedObject == Value {
        box = AwaitedProducedResponse(transfer: request.core.transfer, producer: request.makeResponseProducer(serializer))
    }

    /// The whole response. Runs in the caller's isolation, so non-`Sendable` values (the `Any`
    /// of JSON) can be awaited from any actor.
    nonisolated(nonsending) public var response: DownloadResponse<Value> {
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

extension DownloadRequest {
    /// Awaits the downloaded file's URL (the destination if it was moved, else the temporary file).
    public func serializingDownloadedFileURL() -> DownloadTask<URL> {
        DownloadTask(request: self, serializer: DownloadResponseSerializer.downloadedFileURL())
    }

    /// Awaits the downloaded file's bytes.
    public func serializingData() -> DownloadTask<Data> {
        DownloadTask(request: self, serializer: DownloadResponseSerializer.data())
    }

    /// Awaits the downloaded file as a `String` (see ``responseString(queue:encoding:completionHandler:)``).
    public func serializingString(encoding: String.Encoding? = nil) -> DownloadTask<String> {
        DownloadTask(request: self, serializer: DownloadResponseSerializer.string(encoding: encoding))
    }

    /// Awaits the downloaded file parsed by `JSONSerialization`.
    public func serializingJSON(options: JSONSerialization.ReadingOptions = .allowFragments) -> DownloadTask<Any> {
        DownloadTask(request: self, serializer: DownloadResponseSerializer.json(options: options))
    }

    /// Awaits the downloaded file decoded as `type`.
    public func serializingDecodable<T: Decodable & SendableMetatype>(_ type: T.Type = T.self,
                                                                      decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) -> DownloadTask<T> {
        DownloadTask(request: self, serializer: DownloadResponseSerializer<T>.decodable(of: type, decoder: decoder))
    }

    /// Awaits a response serialized by `serializer`.
    public func serializingDownload<Serializer: DownloadResponseSerializerProtocol>(using serializer: Serializer)
        -> DownloadTask<Serializer.SerializedObject> {
        DownloadTask(request: self, serializer: serializer)
    }
}
