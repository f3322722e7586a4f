#if OpenAPI
import Curlfire
import Foundation
import FoundationNetworking
import HTTPTypes

/// Between the runtime's `HTTPRequest`/`HTTPResponse` and Foundation's types Curlfire speaks.
enum OpenAPIRequestConversion {
    /// The `URLRequest` for `request` against `baseURL`: the base URL's path followed by the
    /// request's path and query; the method; the header fields, repeated ones joined with `", "`
    /// (`"; "` for `Cookie`), as RFC 9110 §5.3 allows.
    static func urlRequest(_ request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
              let requestTarget = URLComponents(string: request.path ?? "/")
        else { throw CurlfireError.invalidURL(url: baseURL.absoluteString + (request.path ?? "")) }
        let basePath = components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + requestTarget.percentEncodedPath
        components.percentEncodedQuery = requestTarget.percentEncodedQuery
        guard let url = components.url else {
            throw CurlfireError.invalidURL(url: baseURL.absoluteString + (request.path ?? ""))
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        var combined: [(name: String, value: String)] = []
        var index: [HTTPField.Name: Int] = [:]
        for field in request.headerFields {
            if let at = index[field.name] {
                let separator = field.name == .cookie ? "; " : ", "
                combined[at].value += separator + field.value
            } else {
                index[field.name] = combined.count
                combined.append((field.name.rawName, field.value))
            }
        }
        for (name, value) in combined { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return urlRequest
    }

    /// The `HTTPResponse` for a Foundation response: its status (with the standard reason phrase)
    /// and header fields.
    static func httpResponse(_ response: HTTPURLResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for (key, value) in response.allHeaderFields {
            guard let key = key as? String, let name = HTTPField.Name(key), let value = value as? String else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return HTTPResponse(status: .init(code: response.statusCode), headerFields: fields)
    }
}
#endif
