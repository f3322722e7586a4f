// Temporary: replaced by the encoding layer when it lands.
import Foundation
import FoundationNetworking
public protocol ParameterEncoding: Sendable {
    func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest
}
public struct URLEncoding: ParameterEncoding {
    public static var `default`: URLEncoding { URLEncoding() }
    public func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters, !parameters.isEmpty, let url = request.url,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return request }
        components.queryItems = (components.queryItems ?? []) + parameters.keys.sorted().map { URLQueryItem(name: $0, value: "\(parameters[$0]!)") }
        request.url = components.url
        return request
    }
}
public struct JSONEncoding: ParameterEncoding {
    public static var `default`: JSONEncoding { JSONEncoding() }
    public func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        guard let parameters else { return request }
        request.httpBody = try JSONSerialization.data(withJSONObject: parameters, options: [.sortedKeys])
        if request.value(forHTTPHeaderField: "Content-Type") == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return request
    }
}
