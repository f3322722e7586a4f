import Foundation
import FoundationNetworking

// Uploads whose body is produced while it is sent (issue 14 point 4): an `InputStream` read on a
// worker thread, or an `AsyncSequence` of `Data`. Both go through a bounded buffer (Bodies/BodyStream.swift),
// so memory stays flat whatever the body's size.

extension SessionManager {
    /// Uploads the bytes of `stream` to `url` (`POST` by default), reading it on a worker thread
    /// as it is sent (Alamofire 4's `upload(_:to:method:headers:)`).
    ///
    /// The body is sent with `Content-Length` when the headers give one (the stream must then
    /// produce exactly that many bytes), else with chunked transfer encoding (HTTP/1.1). At most
    /// about 1 MiB is buffered. A stream that fails (`streamStatus == .error`, a negative read) ends
    /// the request with ``CurlfireError/bodyStreamFailed(reason:)`` (`.inputStreamReadFailed`); the
    /// stream is opened if needed and closed when the request ends. A stream is read once: a retry
    /// or a 307/308 redirect that needs the body again fails with `.notReplayable`.
    ///
    /// - Parameters:
    ///   - stream:          The body. Curlfire reads it from its own thread only; do not touch it afterwards.
    ///   - url:             The URL.
    ///   - method:          The method. `.post` by default.
    ///   - headers:         Headers. `nil` by default.
    ///   - interceptor:     Adapts and retries this request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest`. `nil` by default.
    @discardableResult
    public func upload(_ stream: InputStream, to url: URLConvertible, method: HTTPMethod = .post,
                       headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
                       requestModifier: RequestModifier? = nil) -> UploadRequest {
        let built = Self.build { try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier) }
        return streamUpload(.inputStream(stream), built: built, interceptor: interceptor)
    }

    /// Uploads the bytes of `stream` with the given request, reading it on a worker thread as it
    /// is sent. See ``upload(_:to:method:headers:interceptor:requestModifier:)-(InputStream,_,_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - stream:      The body.
    ///   - urlRequest:  The request.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    @discardableResult
    public func upload(_ stream: InputStream, with urlRequest: URLRequestConvertible,
                       interceptor: (any RequestInterceptor)? = nil) -> UploadRequest {
        streamUpload(.inputStream(stream), built: Self.build { try urlRequest.asURLRequest() }, interceptor: interceptor)
    }

    /// Uploads the chunks of `body` to `url` (`POST` by default) as the sequence produces them.
    ///
    /// The sequence is iterated in a detached task, which waits (without blocking a thread) while
    /// about 1 MiB is buffered. With `length` (or a `Content-Length` header) the body is sent with
    /// that length and must produce exactly that many bytes; without, it is sent chunked
    /// (HTTP/1.1). An error the sequence throws ends the request with
    /// ``CurlfireError/bodyStreamFailed(reason:)`` (`.producerFailed`; your error is its
    /// ``CurlfireError/underlyingError``). Cancelling the request cancels the task. The body is
    /// iterated once: a retry or a 307/308 redirect that needs it again fails with `.notReplayable`.
    ///
    /// - Parameters:
    ///   - body:            The chunks of the body.
    ///   - length:          The body's length in bytes, if known. `nil` by default.
    ///   - url:             The URL.
    ///   - method:          The method. `.post` by default.
    ///   - headers:         Headers. `nil` by default.
    ///   - interceptor:     Adapts and retries this request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest`. `nil` by default.
    @discardableResult
    public func upload<Body: AsyncSequence & Sendable>(
        _ body: Body, length: Int64? = nil, to url: URLConvertible, method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest where Body.Element == Data {
        let built = Self.build { try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier) }
        return streamUpload(.sequence(Self.feed(body)), length: length, built: built, interceptor: interceptor)
    }

    /// Uploads the chunks of `body` with the given request as the sequence produces them. See
    /// ``upload(_:length:to:method:headers:interceptor:requestModifier:)``.
    ///
    /// - Parameters:
    ///   - body:        The chunks of the body.
    ///   - length:      The body's length in bytes, if known. `nil` by default.
    ///   - urlRequest:  The request.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    @discardableResult
    public func upload<Body: AsyncSequence & Sendable>(
        _ body: Body, length: Int64? = nil, with urlRequest: URLRequestConvertible,
        interceptor: (any RequestInterceptor)? = nil
    ) -> UploadRequest where Body.Element == Data {
        streamUpload(.sequence(Self.feed(body)), length: length, built: Self.build { try urlRequest.asURLRequest() },
                     interceptor: interceptor)
    }

    /// Iterates `body` into a ``BodyStream`` (in its producer task), stopping when it is cancelled.
    static func feed<Body: AsyncSequence & Sendable>(_ body: Body) -> @Sendable (BodyStream) async throws -> Void
        where Body.Element == Data {
        { stream in
            for try await chunk in body {
                if Task.isCancelled { return }
                guard await stream.append(chunk) else { return }
            }
        }
    }

    /// The body of a `URLRequest` whose `httpBodyStream` is set, as a ``BodyStream`` read on a
    /// worker thread (one-shot, like ``upload(_:with:interceptor:)-(InputStream,_,_)``), with its
    /// `Content-Length` header when it has one, else chunked.
    static func streamedBody(_ stream: InputStream, of request: URLRequest) -> (UploadBody, URLRequest) {
        var sent = request
        var declared: Int64?
        if let header = request.value(forHTTPHeaderField: "Content-Length") {
            declared = Int64(header.trimmingCharacters(in: .whitespaces))
            if declared == nil { sent.setValue(nil, forHTTPHeaderField: "Content-Length") }
        }
        return (.stream(BodyStream(producer: .inputStream(stream), length: declared)), sent)
    }

    /// An upload whose body is a ``BodyStream`` of `producer`; the length is `length`, else the
    /// request's `Content-Length` header, else unknown (chunked).
    func streamUpload(_ producer: BodyStream.Producer, length: Int64? = nil, built: Result<URLRequest, CurlfireError>,
                      interceptor: (any RequestInterceptor)?) -> UploadRequest {
        var declared = length
        if declared == nil, case let .success(request) = built,
           let header = request.value(forHTTPHeaderField: "Content-Length") {
            declared = Int64(header.trimmingCharacters(in: .whitespaces))
        }
        var request = built
        if let declared, case var .success(withLength) = built {
            withLength.setValue(String(declared), forHTTPHeaderField: "Content-Length")
            request = .success(withLength)
        }
        return upload(.stream(BodyStream(producer: producer, length: declared)), built: request, interceptor: interceptor)
    }
}

/// Uploads the bytes of `stream` on ``SessionManager/default``, reading it on a worker thread as it is sent.
@discardableResult
public func upload(_ stream: InputStream, to url: URLConvertible, method: HTTPMethod = .post,
                   headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
                   requestModifier: SessionManager.RequestModifier? = nil) -> UploadRequest {
    SessionManager.default.upload(stream, to: url, method: method, headers: headers, interceptor: interceptor,
                                  requestModifier: requestModifier)
}

/// Uploads the chunks of `body` on ``SessionManager/default`` as the sequence produces them.
@discardableResult
public func upload<Body: AsyncSequence & Sendable>(
    _ body: Body, length: Int64? = nil, to url: URLConvertible, method: HTTPMethod = .post,
    headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
    requestModifier: SessionManager.RequestModifier? = nil
) -> UploadRequest where Body.Element == Data {
    SessionManager.default.upload(body, length: length, to: url, method: method, headers: headers,
                                  interceptor: interceptor, requestModifier: requestModifier)
}

extension SessionManager {
    /// A download whose request body is the chunks of `body`, streamed as the sequence produces
    /// them (for the package's integrations: CurlfireOpenAPI's transport sends an `HTTPBody` this way).
    ///
    /// - Parameters:
    ///   - urlRequest:  The request.
    ///   - body:        The chunks of the request body, iterated once.
    ///   - length:      The body's length in bytes, if known (else chunked on HTTP/1.1).
    ///   - destination: Where the response body goes. `nil`: a temporary file.
    package func download<Body: AsyncSequence & Sendable>(
        _ urlRequest: URLRequestConvertible, streamingBody body: Body, length: Int64?,
        to destination: DownloadRequest.DownloadFileDestination? = nil
    ) -> DownloadRequest where Body.Element == Data {
        download(Self.build { try urlRequest.asURLRequest() }, plan: .fresh, destination: destination,
                 body: .stream(BodyStream(producer: .sequence(Self.feed(body)), length: length)))
    }
}
