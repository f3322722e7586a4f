import Foundation
import FoundationNetworking

// Alamofire 4 spellings on data requests (issue 30 point 6).

extension DataTransferRequest {
    /// Sends the response body to `closure` chunk by chunk as it arrives, in order, on the
    /// session's callback queue, instead of keeping it — Alamofire 4's `stream(closure:)` (on data
    /// and upload requests). The response handlers then see no `data` (as in Alamofire 4), and the
    /// response is not stored in a ``ResponseCache``. Attach before the request starts; it is an
    /// observer of the request's transfer, so copies share it.
    ///
    /// - Parameter closure: Receives each chunk; `nil` keeps the body as usual. `nil` by default.
    @discardableResult
    public func stream(closure: (@Sendable (Data) -> Void)? = nil) -> Self {
        let core = _dataRequest.core
        if let closure { core.transfer.setDataStream(queue: core.session.callbackQueue, closure) }
        return self
    }
}

extension DataRequest {
    /// Alamofire 4's `Request.authorizationHeader(user:password:)`, here on `DataRequest`: the
    /// Basic `Authorization` header for `user` and `password`, as a key and a value.
    ///
    /// - Parameters:
    ///   - user:     The user.
    ///   - password: The password.
    /// - Returns: `("Authorization", "Basic …")`; never `nil` (UTF-8 always encodes).
    public static func authorizationHeader(user: String, password: String) -> (key: String, value: String)? {
        let header = HTTPHeader.authorization(username: user, password: password)
        return (header.name, header.value)
    }

    /// Alamofire 4's `DataRequest.dataResponseSerializer()`: ``DataResponseSerializer/data()``.
    public static func dataResponseSerializer() -> DataResponseSerializer<Data> { .data() }

    /// Alamofire 4's `DataRequest.stringResponseSerializer(encoding:)`: ``DataResponseSerializer/string(encoding:)``.
    ///
    /// - Parameter encoding: The text encoding; `nil` (the default) reads the response's charset.
    public static func stringResponseSerializer(encoding: String.Encoding? = nil) -> DataResponseSerializer<String> {
        .string(encoding: encoding)
    }

    /// Alamofire 4's `DataRequest.jsonResponseSerializer(options:)`: ``DataResponseSerializer/json(options:)``.
    ///
    /// - Parameter options: `JSONSerialization` options. `.allowFragments` by default.
    public static func jsonResponseSerializer(options: JSONSerialization.ReadingOptions = .allowFragments)
        -> DataResponseSerializer<Any> {
        .json(options: options)
    }

    /// Alamofire 4's `DataRequest.propertyListResponseSerializer(options:)`.
    ///
    /// - Parameter options: `PropertyListSerialization` options. `[]` by default.
    public static func propertyListResponseSerializer(options: PropertyListSerialization.ReadOptions = [])
        -> DataResponseSerializer<Any> {
        .propertyList(options: options)
    }

    /// Alamofire 4's `Request.serializeResponseData(response:data:error:)`, here on `DataRequest`.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - data:     The body.
    ///   - error:    The error so far.
    public static func serializeResponseData(response: HTTPURLResponse?, data: Data?, error: Error?)
        -> Result<Data, CurlfireError> {
        ResponseSerialization.serializeData(request: nil, response: response, data: data, error: error)
    }

    /// Alamofire 4's `Request.serializeResponseString(encoding:response:data:error:)`, here on `DataRequest`.
    ///
    /// - Parameters:
    ///   - encoding: The text encoding; `nil` reads the response's charset.
    ///   - response: The response.
    ///   - data:     The body.
    ///   - error:    The error so far.
    public static func serializeResponseString(encoding: String.Encoding?, response: HTTPURLResponse?, data: Data?,
                                               error: Error?) -> Result<String, CurlfireError> {
        ResponseSerialization.serializeString(encoding: encoding, request: nil, response: response, data: data, error: error)
    }

    /// Alamofire 4's `Request.serializeResponseJSON(options:response:data:error:)`, here on `DataRequest`.
    ///
    /// - Parameters:
    ///   - options:  `JSONSerialization` options.
    ///   - response: The response.
    ///   - data:     The body.
    ///   - error:    The error so far.
    public static func serializeResponseJSON(options: JSONSerialization.ReadingOptions, response: HTTPURLResponse?,
                                             data: Data?, error: Error?) -> Result<Any, CurlfireError> {
        ResponseSerialization.serializeJSON(options: options, request: nil, response: response, data: data, error: error)
    }

    /// Alamofire 4's `Request.serializeResponsePropertyList(options:response:data:error:)`, here on `DataRequest`.
    ///
    /// - Parameters:
    ///   - options:  `PropertyListSerialization` options.
    ///   - response: The response.
    ///   - data:     The body.
    ///   - error:    The error so far.
    public static func serializeResponsePropertyList(options: PropertyListSerialization.ReadOptions,
                                                     response: HTTPURLResponse?, data: Data?,
                                                     error: Error?) -> Result<Any, CurlfireError> {
        ResponseSerialization.serializePropertyList(options: options, request: nil, response: response, data: data,
                                                    error: error)
    }
}

extension DataTransferRequest {
    /// Alamofire 4's `authenticate(usingCredential:)`: answers Basic or Digest challenges with the
    /// credential's user and password. Gives a request with a new transfer; a credential without a
    /// user gives the request unchanged (there is nothing to answer with — no certificate
    /// credentials: use ``SessionConfiguration/clientIdentity``).
    ///
    /// - Parameter credential: The credential.
    public func authenticate(usingCredential credential: URLCredential) -> Self {
        guard let user = credential.user else { return self }
        return authenticate(user: user, password: credential.password ?? "")
    }

    /// Alamofire 4's `authenticate(user:password:persistence:)`. Curlfire keeps credentials for
    /// the request only, whatever `persistence` says.
    ///
    /// - Parameters:
    ///   - user:        The user.
    ///   - password:    The password.
    ///   - persistence: Ignored: no credential storage.
    public func authenticate(user: String, password: String, persistence: URLCredential.Persistence) -> Self {
        authenticate(user: user, password: password)
    }
}
