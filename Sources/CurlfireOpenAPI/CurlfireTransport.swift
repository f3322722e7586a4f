#if OpenAPI
import Curlfire
import Foundation
import FoundationNetworking
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends the requests of a generated OpenAPI client
/// through a Curlfire session.
///
/// ```swift
/// let client = Client(serverURL: try Servers.Server1.url(), transport: CurlfireTransport(session: session))
/// let echo = try await client.getAnything(query: .init(q: "swift")).ok.body.json
/// ```
///
/// Everything the session is set up with applies: its trust policies (pinning, private CAs, client
/// certificates), adapters, retriers, redirect handling, cookies, timeouts and event monitors.
///
/// - The **response body streams**: `send` returns as soon as the response's head and first bytes
///   have arrived, and the `HTTPBody` yields the rest as it comes off the network, with
///   back-pressure (a client that reads slowly pauses the transfer; at most about 1 MiB waits).
///   Dropping the body unread cancels the transfer. A streamed response cannot be retried — its
///   bytes may already be with the client — so when the session has a retrier (or an interceptor),
///   the body is instead written to a temporary file as it arrives (flat memory) and handed over
///   once the transfer, retries included, has ended; the file is unlinked as soon as it is opened.
/// - The **request body** streams as the client produces it: at most about 1 MiB of it is buffered
///   (`Content-Length` when the `HTTPBody`'s length is known, chunked otherwise). A streamed body is
///   read once: a retry (or a 307/308) that needs it again fails with
///   `CurlfireError.bodyStreamFailed(reason: .notReplayable)`. A body that can be iterated more than
///   once with a known length of at most ``replayableBodySize`` (the usual JSON or form body) is
///   sent from memory instead, so retries keep working for it.
/// - **Errors**: an HTTP status is never an error here (the generated client decides); a transfer that
///   fails throws its `CurlfireError` (a timeout, a refused connection, a rejected
///   certificate, a cancellation), which the generated client wraps in the runtime's `ClientError`
///   as `underlyingError`. Cancelling the calling task cancels the transfer.
public struct CurlfireTransport: ClientTransport {
    /// The session requests go through.
    public let session: SessionManager
    /// Kept for source compatibility: request bodies are now streamed, whatever their size, and
    /// this limit is no longer applied. 64 MiB by default.
    public var maximumRequestBodySize: Int

    /// Request bodies that can be iterated more than once and are at most this long (1 MiB) are
    /// sent from memory, so a retry or a 307/308 can send them again; others stream.
    public static let replayableBodySize: Int64 = 1 << 20

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - session:                The session requests go through. `SessionManager.default` by default.
    ///   - maximumRequestBodySize: No longer applied (request bodies stream). 64 MiB by default.
    public init(session: SessionManager = .default, maximumRequestBodySize: Int = 64 << 20) {
        self.session = session
        self.maximumRequestBodySize = maximumRequestBodySize
    }

    /// Sends `request` (with `body`) to `baseURL`, returning the response and its body.
    ///
    /// - Throws: `CurlfireError` when the transfer fails (the generated client wraps it
    ///   in `ClientError`); an error the request body throws comes back as
    ///   `CurlfireError.bodyStreamFailed(reason: .producerFailed(error:))`.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL,
                     operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try OpenAPIRequestConversion.urlRequest(request, baseURL: baseURL)
        // A URLRequest's own timeoutInterval is always honoured: give it the session's idle timeout.
        urlRequest.timeoutInterval = session.configuration.timeoutIntervalForRequest
        if !session.retriesRequests {
            return try await stream(urlRequest, body: body, operationID: operationID)
        }
        let destination = ResponseFile.makeURL()
        let moveTo: DownloadRequest.DownloadFileDestination = { _, _ in
            (destination, [.removePreviousFile, .createIntermediateDirectories])
        }
        let download: DownloadRequest
        if let body {
            let length: Int64? = if case let .known(count) = body.length { count } else { nil }
            if body.iterationBehavior == .multiple, let length, length <= Self.replayableBodySize {
                // Small and replayable (JSON, forms): sent from memory, so retries and 307/308 resend it.
                var withBody = urlRequest
                withBody.httpBody = try await Data(collecting: body, upTo: Int(length))
                download = session.download(withBody, to: moveTo)
            } else {
                // Streamed as the client produces it (Curlfire's BodyStream): never collected in memory.
                download = session.download(urlRequest, streamingBody: RequestBodyChunks(body: body), length: length,
                                            to: moveTo)
            }
        } else {
            download = session.download(urlRequest, to: moveTo)
        }
        let response = await download.serializingDownloadedFileURL().response
        if let error = response.error {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
        guard let httpURLResponse = response.response else {
            try? FileManager.default.removeItem(at: destination)
            throw CurlfireError.sessionTaskFailed(code: .badServerResponse, message: "No response for \(operationID)")
        }
        let httpResponse = OpenAPIRequestConversion.httpResponse(httpURLResponse)
        return (httpResponse, try ResponseFile.body(at: response.fileURL ?? destination))
    }
}

extension CurlfireTransport {
    /// Sends the request as a `StreamRequest` and returns once the head and the first bytes (or the
    /// end of an empty body) have arrived; the rest of the body streams through the returned `HTTPBody`.
    private func stream(_ urlRequest: URLRequest, body: HTTPBody?, operationID: String) async throws
        -> (HTTPResponse, HTTPBody?) {
        let streamRequest: StreamRequest
        if let body {
            let length: Int64? = if case let .known(count) = body.length { count } else { nil }
            if body.iterationBehavior == .multiple, let length, length <= Self.replayableBodySize {
                // Small and replayable: from memory, so a 307/308 can send it again.
                var withBody = urlRequest
                withBody.httpBody = try await Data(collecting: body, upTo: Int(length))
                streamRequest = session.streamRequest(withBody)
            } else {
                streamRequest = session.streamRequest(urlRequest, streamingBody: RequestBodyChunks(body: body),
                                                      length: length)
            }
        } else {
            streamRequest = session.streamRequest(urlRequest)
        }
        let chunks = ResponseChunks(streamRequest.streamingData())
        // The first chunk (or the end of an empty body, or the failure) comes after the head.
        let first = try await chunks.first()
        guard let response = streamRequest.receivedResponse ?? streamRequest.response else {
            throw CurlfireError.sessionTaskFailed(code: .badServerResponse, message: "No response for \(operationID)")
        }
        let httpResponse = OpenAPIRequestConversion.httpResponse(response)
        guard first != nil else { return (httpResponse, HTTPBody()) }
        let length: HTTPBody.Length = response.value(forHTTPHeaderField: "Content-Length").flatMap(Int64.init)
            .map { .known($0) } ?? .unknown
        return (httpResponse, HTTPBody(chunks, length: length, iterationBehavior: .single))
    }
}

/// A stream request's body chunks as the `HTTPBody` of a response: the first chunk, read before the
/// response is returned, then the rest. Iterated once; dropping it unread cancels the transfer
/// (the stream's iterator does, when it is released).
/// `@unchecked Sendable`: `iterator` and `pending` are touched only under `lock`, and `HTTPBody`
/// iterates a `.single` body once, so one reader at a time moves the iterator out and back.
final class ResponseChunks: AsyncSequence, @unchecked Sendable {
    typealias Element = HTTPBody.ByteChunk

    private let lock = NSLock()
    private var iterator: DataStream.Iterator
    private var pending: Data?

    init(_ stream: DataStream) { iterator = stream.makeAsyncIterator() }

    /// Reads the first chunk and keeps it for the body; `nil` when the body is empty.
    func first() async throws -> Data? {
        let chunk = try await nextData()
        lock.withLock { pending = chunk }
        return chunk
    }

    // One reader at a time (`HTTPBody` iterates a `.single` body once), so the iterator is moved out
    // of the lock while it waits and put back after.
    private func nextData() async throws -> Data? {
        var current = lock.withLock { iterator }
        defer { lock.withLock { iterator = current } }
        return try await current.next()
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }

    /// Yields the kept first chunk, then the stream's.
    struct AsyncIterator: AsyncIteratorProtocol {
        let source: ResponseChunks

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            if let kept = source.takePending() { return ArraySlice(kept) }
            return try await source.nextData().map { ArraySlice($0) }
        }
    }

    private func takePending() -> Data? {
        lock.withLock {
            defer { pending = nil }
            return pending
        }
    }
}

/// An `HTTPBody`'s chunks as `Data`, for Curlfire's streamed request bodies.
struct RequestBodyChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let body: HTTPBody

    func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else { return nil }
            return Data(chunk)
        }
    }
}
#endif
