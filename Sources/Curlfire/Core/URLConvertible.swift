import Foundation
import FoundationNetworking

/// A dictionary of parameters to encode into a request, as in Alamofire 4.
public typealias Parameters = [String: Any]

/// A type that can produce a `URL`: `String`, `URL` and `URLComponents` conform.
public protocol URLConvertible: Sendable {
    /// Returns a `URL` or throws ``CurlfireError/invalidURL(url:)``.
    func asURL() throws -> URL
}

extension String: URLConvertible {
    /// Parses the string as an absolute URL with a scheme and a host; throws
    /// ``CurlfireError/invalidURL(url:)`` when it is not one.
    public func asURL() throws -> URL {
        if let url = ParsedURLCache.url(for: self) { return url }
        guard let url = URL(string: self), let scheme = url.scheme, !scheme.isEmpty,
              url.host.map({ !$0.isEmpty }) ?? false
        else { throw CurlfireError.invalidURL(url: self) }
        ParsedURLCache.keep(url, for: self)
        return url
    }
}

extension URL: URLConvertible {
    /// Returns `self`.
    public func asURL() throws -> URL { self }
}

extension URLComponents: URLConvertible {
    /// Returns the components' `url`, or throws ``CurlfireError/invalidURL(url:)``.
    public func asURL() throws -> URL {
        guard let url = url else { throw CurlfireError.invalidURL(url: description) }
        return url
    }
}

/// A type that can produce a `URLRequest`: `URLRequest` conforms; routers usually do too.
public protocol URLRequestConvertible: Sendable {
    /// Returns a `URLRequest` or throws an error (usually a ``CurlfireError``).
    func asURLRequest() throws -> URLRequest
}

extension URLRequestConvertible {
    /// The `URLRequest` this value produces, or `nil` when producing it throws.
    public var urlRequest: URLRequest? { try? asURLRequest() }
}

extension URLRequest: URLRequestConvertible {
    /// Returns `self`.
    public func asURLRequest() throws -> URLRequest { self }
}

extension URLRequest {
    /// Creates a request for `url` with the given method and headers.
    ///
    /// - Parameters:
    ///   - url:     The URL, as anything ``URLConvertible``.
    ///   - method:  The HTTP method.
    ///   - headers: Headers to set, `nil` by default.
    /// - Throws: ``CurlfireError/invalidURL(url:)`` when `url` is not a valid absolute URL;
    ///   ``CurlfireError/invalidHeader(name:)`` when a header holds CR, LF or NUL (Foundation would
    ///   silently drop such a value; Curlfire refuses the request instead).
    public init(url: URLConvertible, method: HTTPMethod, headers: HTTPHeaders? = nil) throws {
        let url = try url.asURL()
        self.init(url: url)
        // A new request's method is already GET; setting it anyway costs a case-insensitive
        // NSString comparison (and an allocation) in swift-corelibs-foundation, on every request.
        if method != .get { httpMethod = method.rawValue }
        if let headers {
            for header in headers {
                guard header.isInjectionSafe else { throw CurlfireError.invalidHeader(name: header.name) }
                setValue(header.value, forHTTPHeaderField: header.name)
            }
        }
    }

    /// The request's method as an ``HTTPMethod``, or `nil` when it is not one.
    public var method: HTTPMethod? {
        get { httpMethod.flatMap(HTTPMethod.init(rawValue:)) }
        set { httpMethod = newValue?.rawValue }
    }

    /// The request's headers as ``HTTPHeaders``.
    public var headers: HTTPHeaders {
        get { allHTTPHeaderFields.map(HTTPHeaders.init) ?? HTTPHeaders() }
        set {
            allHTTPHeaderFields = nil
            for header in newValue { setValue(header.value, forHTTPHeaderField: header.name) }
        }
    }
}
