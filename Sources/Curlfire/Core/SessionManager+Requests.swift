import Foundation
import FoundationNetworking

extension SessionManager {
    /// A closure that changes a request after it is built from a URL, method and headers, and
    /// before its parameters are encoded, as in Alamofire 5. It runs once, on the calling thread.
    public typealias RequestModifier = (inout URLRequest) throws -> Void

    /// Creates a data request from a URL, method, parameters, encoding and headers.
    ///
    /// The request starts at its first response handler, after the chain calls before it; one that
    /// never gets a handler is sent when the last copy of its value is released, as Alamofire 4 sends
    /// a fire-and-forget request. With ``startRequestsImmediately`` `false`, only `resume()` starts
    /// it. A `URLRequest`'s `httpBodyStream` is streamed. An invalid URL or a parameter-encoding failure is
    /// not thrown here: the request's handlers receive it as their error.
    ///
    /// - Parameters:
    ///   - url:        The URL.
    ///   - method:     The method. `.get` by default.
    ///   - parameters: Parameters to encode. `nil` by default.
    ///   - encoding:   How to encode them. `URLEncoding.default` by default.
    ///   - headers:    Headers, added to the session's defaults. `nil` by default.
    ///   - interceptor:     Adapts (after the session's) and retries (before the session's) this
    ///                      request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest` before parameters are encoded; a thrown
    ///                      error fails the request with ``CurlfireError/createURLRequestFailed(error:)``.
    ///                      `nil` by default.
    @discardableResult
    public func request(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                        encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                        interceptor: (any RequestInterceptor)? = nil,
                        requestModifier: RequestModifier? = nil) -> DataRequest {
        if parameters == nil, headers == nil, requestModifier == nil, type(of: encoding) == URLEncoding.self {
            // Nothing to encode or change: the plain parts, a `URLRequest` only when one is read.
            // The encoding's type read from the existential, not `is` (a runtime cast on every
            // request); the same answer, since a struct has no subclasses.
            return request(head: plainHead(url, method: method), interceptor: interceptor)
        }
        let built = Self.build { () throws -> URLRequest in
            let request = try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier)
            return try encoding.encode(request, with: parameters)
        }
        return request(built, interceptor: interceptor)
    }

    /// Creates a data request whose `Encodable` parameters are encoded by `encoder`.
    ///
    /// - Parameters:
    ///   - url:        The URL.
    ///   - method:     The method. `.get` by default.
    ///   - parameters: The value to encode. `nil` by default.
    ///   - encoder:    How to encode it. `URLEncodedFormParameterEncoder.default` by default.
    ///   - headers:    Headers, added to the session's defaults. `nil` by default.
    ///   - interceptor:     Adapts (after the session's) and retries (before the session's) this
    ///                      request only. `nil` by default.
    ///   - requestModifier: Changes the built `URLRequest` before parameters are encoded; a thrown
    ///                      error fails the request with ``CurlfireError/createURLRequestFailed(error:)``.
    ///                      `nil` by default.
    @discardableResult
    public func request<Parameters: Encodable>(_ url: URLConvertible, method: HTTPMethod = .get,
                                               parameters: Parameters? = nil,
                                               encoder: ParameterEncoder = URLEncodedFormParameterEncoder.default,
                                               headers: HTTPHeaders? = nil,
                                               interceptor: (any RequestInterceptor)? = nil,
                                               requestModifier: RequestModifier? = nil) -> DataRequest {
        let built = Self.build { () throws -> URLRequest in
            let request = try makeURLRequest(url, method: method, headers: headers, modifier: requestModifier)
            return try encoder.encode(parameters, into: request)
        }
        return request(built, interceptor: interceptor)
    }

    /// Creates a data request from anything that produces a `URLRequest`.
    ///
    /// - Parameters:
    ///   - urlRequest:  The request.
    ///   - interceptor: Adapts and retries this request only. `nil` by default.
    @discardableResult
    public func request(_ urlRequest: URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil) -> DataRequest {
        request(Self.build { try urlRequest.asURLRequest() }, interceptor: interceptor)
    }

    /// Builds the definition of a data request: the request (or its error) and the session's defaults.
    func request(_ built: Result<URLRequest, CurlfireError>, interceptor: (any RequestInterceptor)? = nil) -> DataRequest {
        request(head: built.map(LazyRequest.built), interceptor: interceptor)
    }

    /// Builds the definition of a data request from a request that may still be in its plain form.
    func request(head: Result<LazyRequest, CurlfireError>, interceptor: (any RequestInterceptor)? = nil) -> DataRequest {
        // The definition goes straight into the core: made in a variable and changed there, it was
        // copied whole into the core (a retain and a release of each reference).
        DataRequest(core: RequestCore(session: self,
                                      definition: dataDefinition(head: head, interceptor: interceptor, cache: cacheSettings)))
    }

    /// The plain parts of `URLRequest(url:method:headers:)` with the session's timeout, as
    /// ``makeURLRequest(_:method:headers:modifier:)`` would build them with no headers and no modifier;
    /// the same ``CurlfireError/invalidURL(url:)`` for a URL it would refuse.
    func plainHead(_ url: URLConvertible, method: HTTPMethod) -> Result<LazyRequest, CurlfireError> {
        do {
            let resolved = try resolvingBaseURL(url).asURL()
            return .success(.plain(url: resolved, method: method, timeout: configuration.timeoutIntervalForRequest))
        } catch let error as CurlfireError {
            return .failure(error)
        } catch {
            return .failure(.parameterEncodingFailed(reason: .customEncodingFailed(error: error)))
        }
    }

    /// The cache settings of the session's data and upload requests; `nil` without a ``ResponseCache``.
    var cacheSettings: RequestCacheSettings? {
        configuration.responseCache.map {
            RequestCacheSettings(cache: $0, handler: cachedResponseHandler, defaultHeaders: configuration.httpAdditionalHeaders)
        }
    }

    /// The definition of a request: its request (or error), the session's adapters, retriers and
    /// redirect handler, and the request's own interceptor (adapting after the session's
    /// adapters, asked before the session's retriers, as ``DataTransferRequest/intercept(using:)``).
    func dataDefinition(_ built: Result<URLRequest, CurlfireError>, interceptor: (any RequestInterceptor)? = nil) -> Transfer.Definition {
        dataDefinition(head: built.map(LazyRequest.built), interceptor: interceptor)
    }

    /// ``dataDefinition(_:interceptor:)`` for a request that may still be in its plain form (which has no body).
    func dataDefinition(head: Result<LazyRequest, CurlfireError>, interceptor: (any RequestInterceptor)? = nil,
                        cache: RequestCacheSettings? = nil) -> Transfer.Definition {
        var definition = Transfer.Definition(head: head)
        definition.cache = cache
        if case let .success(.built(request)) = definition.head {
            if let body = request.httpBody, !body.isEmpty {
                definition.body = .data(body)
            } else if let stream = request.httpBodyStream {
                // Alamofire 4 sends a URLRequest's body stream; it is streamed, never dropped.
                let (body, sent) = Self.streamedBody(stream, of: request)
                definition.body = body
                definition.urlRequest = .success(sent)
            }
        }
        let hooks = sessionHooks
        definition.adapters = hooks.adapters
        definition.retriers = hooks.retriers
        if let interceptor {
            definition.adapters.append(interceptor)
            definition.retriers.insert(interceptor, at: 0)
        }
        definition.redirectHandler = hooks.redirectHandler
        return definition
    }

    /// A request from a URL (resolved against ``SessionConfiguration/baseURL``), method and headers,
    /// changed by `modifier`; a non-``CurlfireError``
    /// the modifier throws becomes ``CurlfireError/createURLRequestFailed(error:)``.
    func makeURLRequest(_ url: URLConvertible, method: HTTPMethod, headers: HTTPHeaders?,
                        modifier: RequestModifier?) throws -> URLRequest {
        var request = try URLRequest(url: try resolvingBaseURL(url), method: method, headers: headers)
        // The session's idle timeout, so that the request's own value is always meant (60 included).
        request.timeoutInterval = configuration.timeoutIntervalForRequest
        guard let modifier else { return request }
        do {
            try modifier(&request)
        } catch let error as CurlfireError {
            throw error
        } catch {
            throw CurlfireError.createURLRequestFailed(error: error)
        }
        return request
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
/// ``SessionManager/request(_:method:parameters:encoding:headers:interceptor:requestModifier:)``.
@discardableResult
public func request(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                    encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                    interceptor: (any RequestInterceptor)? = nil,
                    requestModifier: SessionManager.RequestModifier? = nil) -> DataRequest {
    SessionManager.default.request(url, method: method, parameters: parameters, encoding: encoding, headers: headers,
                                   interceptor: interceptor, requestModifier: requestModifier)
}

/// Creates a data request with `Encodable` parameters on ``SessionManager/default``; see
/// ``SessionManager/request(_:method:parameters:encoder:headers:interceptor:requestModifier:)``.
@discardableResult
public func request<Parameters: Encodable>(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                                           encoder: ParameterEncoder = URLEncodedFormParameterEncoder.default,
                                           headers: HTTPHeaders? = nil,
                                           interceptor: (any RequestInterceptor)? = nil,
                                           requestModifier: SessionManager.RequestModifier? = nil) -> DataRequest {
    SessionManager.default.request(url, method: method, parameters: parameters, encoder: encoder, headers: headers,
                                   interceptor: interceptor, requestModifier: requestModifier)
}

/// Creates a data request from a `URLRequestConvertible` on ``SessionManager/default``.
@discardableResult
public func request(_ urlRequest: URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil) -> DataRequest {
    SessionManager.default.request(urlRequest, interceptor: interceptor)
}
