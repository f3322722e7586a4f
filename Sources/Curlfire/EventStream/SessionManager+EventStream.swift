import Foundation

extension SessionManager {
    /// Creates a server-sent event stream request (`text/event-stream`).
    ///
    /// - Parameters:
    ///   - url:           The URL.
    ///   - method:        The method. `.get` by default; LLM APIs take `.post` with a JSON body.
    ///   - parameters:    Parameters to encode. `nil` by default.
    ///   - encoding:      How to encode them. `URLEncoding.default` by default.
    ///   - headers:       Headers, added to the session's defaults. `nil` by default.
    ///   - configuration: Reconnection, event size limit and idle timeout. `.init()` by default.
    /// - Returns:         The request; its first connection opens when its events are asked for.
    public func eventStreamRequest(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                                   encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                                   configuration: EventStreamConfiguration = .init()) -> EventStreamRequest {
        let built = Self.build { () throws -> URLRequest in
            try encoding.encode(try makeURLRequest(url, method: method, headers: headers, modifier: nil), with: parameters)
        }
        return EventStreamRequest(session: self, built: built, configuration: configuration)
    }

    /// Creates a server-sent event stream request from anything that produces a `URLRequest`.
    ///
    /// - Parameters:
    ///   - urlRequest:    The request (built once; each connection sends it with `Last-Event-ID`).
    ///   - configuration: Reconnection, event size limit and idle timeout. `.init()` by default.
    /// - Returns:         The request.
    public func eventStreamRequest(_ urlRequest: URLRequestConvertible,
                                   configuration: EventStreamConfiguration = .init()) -> EventStreamRequest {
        EventStreamRequest(session: self, built: Self.build { try urlRequest.asURLRequest() }, configuration: configuration)
    }
}

/// Creates a server-sent event stream request on ``SessionManager/default``; see
/// ``SessionManager/eventStreamRequest(_:method:parameters:encoding:headers:configuration:)``.
public func eventStreamRequest(_ url: URLConvertible, method: HTTPMethod = .get, parameters: Parameters? = nil,
                               encoding: ParameterEncoding = URLEncoding.default, headers: HTTPHeaders? = nil,
                               configuration: EventStreamConfiguration = .init()) -> EventStreamRequest {
    SessionManager.default.eventStreamRequest(url, method: method, parameters: parameters, encoding: encoding,
                                              headers: headers, configuration: configuration)
}

/// Creates a server-sent event stream request from a `URLRequestConvertible` on ``SessionManager/default``.
public func eventStreamRequest(_ urlRequest: URLRequestConvertible,
                               configuration: EventStreamConfiguration = .init()) -> EventStreamRequest {
    SessionManager.default.eventStreamRequest(urlRequest, configuration: configuration)
}
