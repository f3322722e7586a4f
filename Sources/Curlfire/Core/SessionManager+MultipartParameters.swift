import Foundation
import FoundationNetworking

// AFNetworking's `POST:parameters:constructingBodyWithBlock:` (issue 30 point 7).

extension SessionManager {
    /// Uploads a multipart form whose first parts are `parameters`, one text field each, followed
    /// by the parts `multipartFormData` appends — AFNetworking's
    /// `POST:parameters:constructingBodyWithBlock:`.
    ///
    /// Fields are named as `URLEncoding` names query parameters (sorted keys; `tags[]` for array
    /// elements, `user[name]` for nested dictionaries), values written as `URLEncoding` writes them
    /// (`true`/`false` as `1`/`0`, numbers in full), but not percent-escaped. A value that cannot be
    /// written (a non-finite number) fails the request with
    /// ``CurlfireError/parameterEncodingFailed(reason:)``; nothing is sent.
    ///
    /// - Parameters:
    ///   - multipartFormData:       Appends the form's other parts, after the parameters.
    ///   - parameters:              The form fields. `nil` adds none.
    ///   - encodingMemoryThreshold: Forms at least this long are encoded to disk. 10 MB by default.
    ///   - url:                     The URL.
    ///   - method:                  The method. `.post` by default.
    ///   - headers:                 Headers. `nil` by default.
    ///   - interceptor:             Adapts and retries this request only. `nil` by default.
    ///   - requestModifier:         Changes the built `URLRequest`. `nil` by default.
    @discardableResult
    public func upload(multipartFormData: (MultipartFormData) -> Void, parameters: Parameters?,
                       usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
                       to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
                       interceptor: (any RequestInterceptor)? = nil,
                       requestModifier: RequestModifier? = nil) -> UploadRequest {
        let form = MultipartFormData()
        do {
            try form.appendFields(parameters ?? [:])
        } catch {
            let failure = (error as? CurlfireError) ?? .parameterEncodingFailed(reason: .customEncodingFailed(error: error))
            return upload(.none, built: .failure(failure), interceptor: interceptor)
        }
        multipartFormData(form)
        return upload(multipartFormData: form, usingThreshold: encodingMemoryThreshold, to: url, method: method,
                      headers: headers, interceptor: interceptor, requestModifier: requestModifier)
    }
}

/// Uploads a multipart form of `parameters` and the parts `multipartFormData` appends on
/// ``SessionManager/default``; see
/// ``SessionManager/upload(multipartFormData:parameters:usingThreshold:to:method:headers:interceptor:requestModifier:)``.
@discardableResult
public func upload(multipartFormData: (MultipartFormData) -> Void, parameters: Parameters?,
                   usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
                   to url: URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil) -> UploadRequest {
    SessionManager.default.upload(multipartFormData: multipartFormData, parameters: parameters,
                                  usingThreshold: encodingMemoryThreshold, to: url, method: method, headers: headers)
}

extension MultipartFormData {
    /// Appends one text part per parameter, named and written as `URLEncoding` would, unescaped.
    func appendFields(_ parameters: Parameters) throws {
        let encoding = URLEncoding.default
        for key in parameters.keys.sorted() {
            for (name, value) in try encoding.queryComponents(fromKey: key, value: parameters[key] as Any) {
                append(Data((value.removingPercentEncoding ?? value).utf8),
                       withName: name.removingPercentEncoding ?? name)
            }
        }
    }
}
