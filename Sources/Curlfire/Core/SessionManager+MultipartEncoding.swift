import Foundation
import FoundationNetworking

extension SessionManager {
    /// The outcome of encoding a multipart form, handed to the `encodingCompletion` of
    /// ``SessionManager/upload(multipartFormData:usingThreshold:to:method:headers:queue:encodingCompletion:)``,
    /// as in Alamofire 4.
    public enum MultipartFormDataEncodingResult: Sendable {
        /// The form was encoded: `request` uploads it (attach a response handler to start it);
        /// `streamingFromDisk` tells whether it was written to the temporary file `streamFileURL`
        /// (removed when the request ends) rather than kept in memory.
        case success(request: UploadRequest, streamingFromDisk: Bool, streamFileURL: URL?)
        /// The form could not be encoded (a missing or unreadable file, a failing stream, a full
        /// disk): a ``CurlfireError``, usually ``CurlfireError/multipartEncodingFailed(reason:)``.
        case failure(Error)
    }

    /// The size above which a multipart form is encoded to disk: Alamofire 4's name for
    /// ``MultipartFormData/encodingMemoryThreshold`` (10 MB).
    public static let multipartFormDataEncodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold

    /// Encodes a multipart form and hands the upload request to `encodingCompletion` — Alamofire 4's
    /// call shape, so its code compiles unchanged. The form-returning
    /// `upload(multipartFormData:usingThreshold:to:method:headers:interceptor:requestModifier:)` does the same in one step.
    ///
    /// The form is built and encoded when this is called, on the calling thread; `encodingCompletion`
    /// is then called once, on `queue`. Attach a response handler to the request it gets to start it.
    ///
    /// - Parameters:
    ///   - multipartFormData:       Appends the form's parts.
    ///   - encodingMemoryThreshold: Forms at least this long are encoded to a temporary file and
    ///                              streamed from disk. 10 MB by default.
    ///   - url:                     The URL.
    ///   - method:                  The method. `.post` by default.
    ///   - headers:                 Headers. `nil` by default.
    ///   - queue:                   Where `encodingCompletion` runs. `nil` by default: the session's
    ///                              ``callbackQueue``.
    ///   - encodingCompletion:      Receives the request, or the encoding error. Called once; `nil`
    ///                              drops the request (nothing is sent).
    public func upload(multipartFormData: (MultipartFormData) -> Void,
                       usingThreshold encodingMemoryThreshold: UInt64 = SessionManager.multipartFormDataEncodingMemoryThreshold,
                       to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
                       queue: DispatchQueue? = nil,
                       encodingCompletion: (@Sendable (MultipartFormDataEncodingResult) -> Void)?) {
        let form = MultipartFormData()
        multipartFormData(form)
        let result = encodingResult(of: form, threshold: encodingMemoryThreshold,
                                    built: multipartURLRequest(form, to: url, method: method, headers: headers))
        guard let encodingCompletion else { return }
        (queue ?? callbackQueue).async { encodingCompletion(result) }
    }

    /// Encodes a multipart form and hands the upload request made with `urlRequest` to
    /// `encodingCompletion`, as in Alamofire 4; see
    /// ``upload(multipartFormData:usingThreshold:to:method:headers:queue:encodingCompletion:)``.
    ///
    /// - Parameters:
    ///   - multipartFormData:       Appends the form's parts.
    ///   - encodingMemoryThreshold: Forms at least this long are streamed from disk. 10 MB by default.
    ///   - urlRequest:              The request; its `Content-Type` is set to the form's unless it has one.
    ///   - queue:                   Where `encodingCompletion` runs. `nil` by default: the session's
    ///                              ``callbackQueue``.
    ///   - encodingCompletion:      Receives the request, or the encoding error. Called once.
    public func upload(multipartFormData: (MultipartFormData) -> Void,
                       usingThreshold encodingMemoryThreshold: UInt64 = SessionManager.multipartFormDataEncodingMemoryThreshold,
                       with urlRequest: URLRequestConvertible, queue: DispatchQueue? = nil,
                       encodingCompletion: (@Sendable (MultipartFormDataEncodingResult) -> Void)?) {
        let form = MultipartFormData()
        multipartFormData(form)
        let built = Self.build { () throws -> URLRequest in
            var request = try urlRequest.asURLRequest()
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            }
            return request
        }
        let result = encodingResult(of: form, threshold: encodingMemoryThreshold, built: built)
        guard let encodingCompletion else { return }
        (queue ?? callbackQueue).async { encodingCompletion(result) }
    }

    private func encodingResult(of form: MultipartFormData, threshold: UInt64,
                                built: Result<URLRequest, CurlfireError>) -> MultipartFormDataEncodingResult {
        switch encodedBody(of: form, threshold: threshold) {
        case let .failure(error):
            return .failure(error)
        case let .success(body):
            let request = upload(body, built: built)
            if case let .file(fileURL, _) = body {
                return .success(request: request, streamingFromDisk: true, streamFileURL: fileURL)
            }
            return .success(request: request, streamingFromDisk: false, streamFileURL: nil)
        }
    }
}

/// Encodes a multipart form on ``SessionManager/default`` and hands the upload request to
/// `encodingCompletion`, as in Alamofire 4; see
/// ``SessionManager/upload(multipartFormData:usingThreshold:to:method:headers:queue:encodingCompletion:)``.
///
/// - Parameters:
///   - multipartFormData:       Appends the form's parts.
///   - encodingMemoryThreshold: Forms at least this long are streamed from disk. 10 MB by default.
///   - url:                     The URL.
///   - method:                  The method. `.post` by default.
///   - headers:                 Headers. `nil` by default.
///   - queue:                   Where `encodingCompletion` runs. `nil` by default: the session's callback queue.
///   - encodingCompletion:      Receives the request, or the encoding error. Called once.
public func upload(multipartFormData: (MultipartFormData) -> Void,
                   usingThreshold encodingMemoryThreshold: UInt64 = SessionManager.multipartFormDataEncodingMemoryThreshold,
                   to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
                   queue: DispatchQueue? = nil,
                   encodingCompletion: (@Sendable (SessionManager.MultipartFormDataEncodingResult) -> Void)?) {
    SessionManager.default.upload(multipartFormData: multipartFormData, usingThreshold: encodingMemoryThreshold,
                                  to: url, method: method, headers: headers, queue: queue,
                                  encodingCompletion: encodingCompletion)
}
