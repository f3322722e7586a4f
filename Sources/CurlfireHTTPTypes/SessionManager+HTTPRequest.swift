#if HTTPTypes
import Curlfire
import Foundation
import FoundationNetworking
import HTTPTypes
import HTTPTypesFoundation

extension SessionManager {
    /// Sends an `HTTPRequest` of swift-http-types through this session.
    ///
    /// The request's method, URL (`scheme` + `authority` + `path`) and header fields become the
    /// `URLRequest` Curlfire sends; everything else — adapters, retriers, redirects, trust policies,
    /// event monitors, the session's default headers — applies as to any data request. Repeated
    /// header fields are sent as one field line joined with `", "` (`"; "` for `Cookie`), as
    /// RFC 9110 §5.3 allows and as swift-http-types' own `URLRequest(httpRequest:)` does.
    ///
    /// A request without a scheme or authority (one that has no URL) does not throw here: like any
    /// request that cannot be built, it ends with `CurlfireError/invalidURL(url:)`, delivered to
    /// every response handler.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - body:    The request body. `nil` (no body) by default.
    /// - Returns: The data request, to chain validators and response handlers on.
    public func request(_ request: HTTPRequest, body: Data? = nil) -> DataRequest {
        self.request(HTTPRequestConvertible(request: request, body: body,
                                            timeoutInterval: configuration.timeoutIntervalForRequest))
    }
}

/// Turns an `HTTPRequest` and a body into the `URLRequest` Curlfire sends.
struct HTTPRequestConvertible: URLRequestConvertible {
    let request: HTTPRequest
    let body: Data?
    /// The session's idle timeout (a `URLRequest`'s own `timeoutInterval` is always honoured).
    let timeoutInterval: TimeInterval

    func asURLRequest() throws -> URLRequest {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            let target = [request.scheme.map { "\($0)://" }, request.authority, request.path]
                .compactMap { $0 }
                .joined()
            throw CurlfireError.invalidURL(url: target)
        }
        urlRequest.httpBody = body
        urlRequest.timeoutInterval = timeoutInterval
        return urlRequest
    }
}
#endif
