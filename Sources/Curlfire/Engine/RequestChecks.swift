import Foundation
import FoundationNetworking

/// Checks a request must pass before any byte is sent.
enum RequestChecks {
    /// Rejects header injection (CR, LF or NUL in a name or value of the request's headers or of the
    /// session's `defaultHeaders`, which each attempt adds), a URL libcurl cannot send, and a body on
    /// a `GET` unless allowed.
    static func validate(_ request: URLRequest, body: UploadBody, allowsBodyInGET: Bool,
                         defaultHeaders: HTTPHeaders = HTTPHeaders()) -> CurlfireError? {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else { return .invalidURL(url: request.url?.absoluteString ?? "nil") }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if !HTTPHeader(name: name, value: value).isInjectionSafe { return .invalidHeader(name: name) }
        }
        if let unsafe = defaultHeaders.first(where: { !$0.isInjectionSafe }) { return .invalidHeader(name: unsafe.name) }
        if request.httpMethod?.uppercased() ?? "GET" == "GET", !allowsBodyInGET, !body.isEmpty {
            return .bodyDataInGETRequest
        }
        return nil
    }
}
