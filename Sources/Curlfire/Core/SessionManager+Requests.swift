import Foundation
import FoundationNetworking

extension SessionManager {
    /// Creates a data request from a URL, method, parameters, encoding and headers.
    ///
    /// Nothing is sent until a response handler is attached (or `resume()` is called when
    /// ``startRequestsImmediately`` is `false`). An invalid URL or a parameter-encoding failure is
    /// not thrown here: the request's handlers receive it as their error.
    ///
    /// - Parameters:
    ///   - url:        The URL.
    ///   - method:     The method. `.get` by default.
    ///   - parameters: Parameters to encode. `nil` by default.
    ///   - encoding:   How to encode them. `URLEncoding.default` by default.
    ///   - headers:    Headers, added to the session's defaults. `nil` by default.
    public func request(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                        encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil) -> DataRequest {
        let built = Self.build { () throws -> URLRequest in
            let request = try URLRequest(url: url, method: method, headers: headers)
            return try encoding.encode(request, with: parameters)
        }
        return request(built)
    }

    /// Creates a data request whose `Encodable` parameters are encoded by `encoder`.
    ///
    /// - Parameters:
    ///   - url:        The URL.
    ///   - method:     The method. `.get` by default.
    ///   - parameters: The value to encode. `nil` by default.
    ///   - encoder:    How to encode it. `URLEncodedFormParameterEncoder.default` by default.
    ///   - headers:    Headers, added to the session's defaults. `nil` by default.
    public func request<Parameters: Encodable>(_ url: URLConvertible, method: HTTPMethod = .get,
                                               parameters: Parameters? = nil,
                                               encoder: ParameterEncoder = URLEncodedFormParameterEncoder.default,
                                               headers: HTTPHeaders? = nil) -> DataRequest {
        let built = Self.build { () throws -> URLRequest in
            let request = try URLRequest(url: url, method: method, headers: headers)
            return try encoder.encode(parameters, into: request)
        }
        return request(built)
    }

    /// Creates a data request from anything that produces a `URLRequest`.
    public func request(_ urlRequest: URLRequestConvertible) -> DataRequest {
        request(Self.build { try urlRequest.asURLRequest() })
    }

    /// Builds the spec of a data request: the request (or its error) and the session's defaults.
    func request(_ built: Result<URLRequest, CurlfireError>) -> DataRequest {
        var spec = dataSpec(built)
        spec.cache = cacheSettings
        return DataRequest(core: RequestCore(session: self, spec: spec))
    }

    /// The cache settings of the session's data and upload requests; `nil` without a ``ResponseCache``.
    var cacheSettings: RequestCacheSettings? {
        configuration.responseCache.map {
            RequestCacheSettings(cache: $0, handler: cachedResponseHandler, defaultHeaders: configuration.httpAdditionalHeaders)
        }
    }

    func dataSpec(_ built: Result<URLRequest, CurlfireError>) -> Transfer.Spec {
        var spec = Transfer.Spec(urlRequest: built)
        if case let .success(request) = spec.urlRequest, let body = request.httpBody, !body.isEmpty {
            spec.body = .data(body)
        }
        spec.adapters = sessionAdapters
        spec.retriers = sessionRetriers
        spec.redirectHandler = redirectHandler
        return spec
    }

    /// Runs `make`, turning any error into a ``CurlfireError``.
    static func build(_ make: () throws -> URLRequest) -> Result<URLRequest, CurlfireError> {
        do {
            return .success(try make())
        } catch let error as CurlfireError {
            return .failure(error)
        } catch {
            return .failure(.parameterEncodingFailed(reason: .customEncodingFailed(error: error)))
        }
    }
}

// MARK: - Module-level conveniences on `SessionManager.default`

/// Creates a data request on ``SessionManager/default``; see
/// ``SessionManager/request(_:method:parameters:encoding:headers:)``.
public func request(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                    encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil) -> DataRequest {
    SessionManager.default.request(url, method: method, parameters: parameters, encoding: encoding, headers: headers)
}

/// Creates a data request with `Encodable` parameters on ``SessionManager/default``; see
/// ``SessionManager/request(_:method:parameters:encoder:headers:)``.
public func request<Parameters: Encodable>(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                                           encoder: ParameterEncoder = URLEncodedFormParameterEncoder.default,
                                           headers: HTTPHeaders? = nil) -> DataRequest {
    SessionManager.default.request(url, method: method, parameters: parameters, encoder: encoder, headers: headers)
}

/// Creates a data request from a `URLRequestConvertible` on ``SessionManager/default``.
public func request(_ urlRequest: URLRequestConvertible) -> DataRequest {
    SessionManager.default.request(urlRequest)
}
