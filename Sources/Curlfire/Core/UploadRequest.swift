import Foundation
import FoundationNetworking

/// A request that sends a body from memory, a file (streamed from disk, never read whole) or a
/// multipart form, and collects the response in memory. Everything a ``DataRequest`` chain has,
/// with ``DataTransferRequest/uploadProgress(queue:closure:)`` reporting the bytes sent.
public struct UploadRequest: DataTransferRequest {
    /// The data request carrying the body.
    public var _dataRequest: DataRequest

    init(_ request: DataRequest) { _dataRequest = request }
}

extension SessionManager {
    /// Uploads `data` to `url` (`POST` by default).
    ///
    /// - Parameters:
    ///   - data:            The body.
    ///   - url:             The URL.
    ///   - method:          The method. `.post` by default.
    ///   - headers:         Headers. `nil` by default.
    ///   - interceptor:     Adapts (after the session's) and retries (before the session's) this
    ///                      request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest` ; a thrown
    ///                      error fails the request with ``CurlfireError/createURLRequestFailed(error:)``.
    ///                      `nil` by default.
    @discardableResult
    public func upload(_ data: Data, to url: URLConvertible, method: HTTPMethod = .post,
                       headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
                       requestModifier: RequestModifier? = nil) -> UploadRequest {
        upload(.data(data), built: Self.build {
            try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier)
        }, interceptor: interceptor)
    }

    /// Uploads `data` with the given request.
    ///
    /// - Parameters:
    ///   - data:        The body.
    ///   - urlRequest:  The request.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    @discardableResult
    public func upload(_ data: Data, with urlRequest: URLRequestConvertible,
                       interceptor: (any RequestInterceptor)? = nil) -> UploadRequest {
        upload(.data(data), built: Self.build { try urlRequest.asURLRequest() }, interceptor: interceptor)
    }

    /// Uploads the file at `fileURL` to `url` (`POST` by default), streaming it from disk.
    /// A missing or unreadable file fails the request with ``CurlfireError/uploadableReadFailed(path:message:)``.
    ///
    /// - Parameters:
    ///   - fileURL:         The file.
    ///   - url:             The URL.
    ///   - method:          The method. `.post` by default.
    ///   - headers:         Headers. `nil` by default.
    ///   - interceptor:     Adapts (after the session's) and retries (before the session's) this
    ///                      request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest` ; a thrown
    ///                      error fails the request with ``CurlfireError/createURLRequestFailed(error:)``.
    ///                      `nil` by default.
    @discardableResult
    public func upload(_ fileURL: URL, to url: URLConvertible, method: HTTPMethod = .post,
                       headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
                       requestModifier: RequestModifier? = nil) -> UploadRequest {
        upload(fileBody(fileURL), built: Self.build {
            try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier)
        }, interceptor: interceptor)
    }

    /// Uploads the file at `fileURL` with the given request, streaming it from disk.
    ///
    /// - Parameters:
    ///   - fileURL:     The file.
    ///   - urlRequest:  The request.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    @discardableResult
    public func upload(_ fileURL: URL, with urlRequest: URLRequestConvertible,
                       interceptor: (any RequestInterceptor)? = nil) -> UploadRequest {
        upload(fileBody(fileURL), built: Self.build { try urlRequest.asURLRequest() }, interceptor: interceptor)
    }

    /// Uploads a multipart form built by `multipartFormData` to `url` (`POST` by default).
    ///
    /// The form is encoded when this is called: in memory below `encodingMemoryThreshold` bytes,
    /// else into a temporary file that is streamed and removed when the request ends (completed,
    /// failed or cancelled) or is released without ever starting. `Content-Type` is set to the
    /// form's `multipart/form-data; boundary=…` unless the headers name one.
    ///
    /// - Parameters:
    ///   - multipartFormData:       Appends the form's parts.
    ///   - encodingMemoryThreshold: Forms at least this long are encoded to disk. 10 MB by default.
    ///   - url:                     The URL.
    ///   - method:                  The method. `.post` by default.
    ///   - headers:                 Headers. `nil` by default.
    ///   - interceptor:             Adapts and retries this request only. `nil` by default.
    ///   - requestModifier:         Changes the built `URLRequest`; a thrown error fails the request
    ///                              with ``CurlfireError/createURLRequestFailed(error:)``. `nil` by default.
    @discardableResult
    public func upload(multipartFormData: (MultipartFormData) -> Void,
                       usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
                       to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
                       interceptor: (any RequestInterceptor)? = nil,
                       requestModifier: RequestModifier? = nil) -> UploadRequest {
        let form = MultipartFormData()
        multipartFormData(form)
        return upload(multipartFormData: form, usingThreshold: encodingMemoryThreshold, to: url, method: method,
                      headers: headers, interceptor: interceptor, requestModifier: requestModifier)
    }

    /// Uploads an already built multipart form; the closure-taking overload above builds the form for you.
    ///
    /// - Parameters:
    ///   - multipartFormData:       The form.
    ///   - encodingMemoryThreshold: Forms at least this long are encoded to disk. 10 MB by default.
    ///   - url:                     The URL.
    ///   - method:                  The method. `.post` by default.
    ///   - headers:                 Headers. `nil` by default.
    ///   - interceptor:             Adapts and retries this request only. `nil` by default.
    ///   - requestModifier:         Changes the built `URLRequest`. `nil` by default.
    @discardableResult
    public func upload(multipartFormData: MultipartFormData,
                       usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
                       to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
                       interceptor: (any RequestInterceptor)? = nil,
                       requestModifier: RequestModifier? = nil) -> UploadRequest {
        let built = multipartURLRequest(multipartFormData, to: url, method: method, headers: headers,
                                        modifier: requestModifier)
        switch encodedBody(of: multipartFormData, threshold: encodingMemoryThreshold) {
        case let .failure(failure): return upload(.none, built: .failure(failure), interceptor: interceptor)
        case let .success(body): return upload(body, built: built, interceptor: interceptor)
        }
    }

    /// The request of a multipart upload: `Content-Type` is the form's unless the headers (or the
    /// modifier) name one.
    func multipartURLRequest(_ form: MultipartFormData, to url: URLConvertible, method: HTTPMethod,
                             headers: HTTPHeaders?, modifier: RequestModifier? = nil) -> Result<URLRequest, CurlfireError> {
        Self.build { () throws -> URLRequest in
            var request = try makeURLRequest(url, method: method, headers: headers, modifier: modifier)
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            }
            return request
        }
    }

    /// Encodes a form in memory (below `threshold` bytes) or to a temporary file the transfer removes.
    func encodedBody(of form: MultipartFormData, threshold: UInt64) -> Result<UploadBody, CurlfireError> {
        do {
            switch try form.makeUploadable(threshold: threshold, temporaryDirectory: FileManager.default.temporaryDirectory) {
            case let .data(data): return .success(.data(data))
            case let .file(fileURL, remove): return .success(.file(fileURL, removeAfterUpload: remove))
            }
        } catch {
            return .failure((error as? CurlfireError) ?? .multipartEncodingFailed(reason: .outputStreamWriteFailed(error: error)))
        }
    }

    private func fileBody(_ fileURL: URL) -> UploadBody { .file(fileURL, removeAfterUpload: false) }

    func upload(_ body: UploadBody, built: Result<URLRequest, CurlfireError>,
                interceptor: (any RequestInterceptor)? = nil) -> UploadRequest {
        var definition = dataDefinition(built, interceptor: interceptor)
        definition.body = body
        definition.cache = cacheSettings // an upload's success invalidates the stored response for its URL
        definition.makeRequestValue = { UploadRequest(DataRequest(core: $0)) }
        return UploadRequest(DataRequest(core: RequestCore(session: self, definition: definition)))
    }
}

/// Uploads `data` on ``SessionManager/default``.
@discardableResult
public func upload(_ data: Data, to url: URLConvertible, method: HTTPMethod = .post,
                   headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
                   requestModifier: SessionManager.RequestModifier? = nil) -> UploadRequest {
    SessionManager.default.upload(data, to: url, method: method, headers: headers, interceptor: interceptor,
                                  requestModifier: requestModifier)
}

/// Uploads a file on ``SessionManager/default``, streaming it from disk.
@discardableResult
public func upload(_ fileURL: URL, to url: URLConvertible, method: HTTPMethod = .post,
                   headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil,
                   requestModifier: SessionManager.RequestModifier? = nil) -> UploadRequest {
    SessionManager.default.upload(fileURL, to: url, method: method, headers: headers, interceptor: interceptor,
                                  requestModifier: requestModifier)
}

/// Uploads a multipart form on ``SessionManager/default``.
@discardableResult
public func upload(multipartFormData: (MultipartFormData) -> Void,
                   usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
                   to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
                   interceptor: (any RequestInterceptor)? = nil,
                   requestModifier: SessionManager.RequestModifier? = nil) -> UploadRequest {
    SessionManager.default.upload(multipartFormData: multipartFormData, usingThreshold: encodingMemoryThreshold,
                                  to: url, method: method, headers: headers, interceptor: interceptor,
                                  requestModifier: requestModifier)
}
