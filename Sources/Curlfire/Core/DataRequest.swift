import Foundation
import FoundationNetworking

/// A request whose response body is collected in memory, as in Alamofire 4 — but a value type.
///
/// Every chain method returns a modified copy (`Self`). Copies share one transfer: handlers
/// attached to any of them run once each, in the order attached, after that transfer. Validators
/// are captured by each handler when it is attached. The transfer starts with the first handler,
/// or — for a request that never gets one — when the last copy of the value is released (Alamofire
/// 4's fire-and-forget); only `resume()` starts it when the session's `startRequestsImmediately`
/// is `false`.
public struct DataRequest: DataTransferRequest {
    var core: RequestCore
    var validators = DataValidators()

    init(core: RequestCore) { self.core = core }

    /// `self`: a data request is its own underlying data request.
    public var _dataRequest: DataRequest {
        get { self }
        set { self = newValue }
    }

}

/// A request whose response body is collected in memory: ``DataRequest`` and ``UploadRequest``.
///
/// Every chain method (validation, response handlers, async serializers, progress, modifiers) is
/// written once on this protocol and returns `Self`, so an `UploadRequest` chain stays an
/// `UploadRequest`.
public protocol DataTransferRequest: Request {
    /// The data request underneath (for an `UploadRequest`, the one carrying its body). Used by
    /// the chain methods; not meant to be called directly.
    var _dataRequest: DataRequest { get set }
}

extension DataTransferRequest {
    /// The request as sent by the latest attempt, or as built before it started.
    public var request: URLRequest? { _dataRequest.core.transfer.request }
    /// The latest response.
    public var response: HTTPURLResponse? { _dataRequest.core.transfer.response }
    /// How many times the request was retried.
    public var retryCount: Int { _dataRequest.core.transfer.retryCount }
    /// The request's identity: the same for every copy of the value and across retries.
    public var id: UUID { _dataRequest.core.transfer.id }
    /// Where the request is in its life: `.initialized`, `.resumed`, `.suspended`, `.cancelled`, `.finished`.
    public var state: RequestState { _dataRequest.core.transfer.publicState }
    /// The session that runs the request.
    public var session: SessionManager { _dataRequest.core.session }

    /// Cancels the transfer; handlers receive ``CurlfireError/explicitlyCancelled``. Any thread, any time.
    @discardableResult public func cancel() -> Self { _dataRequest.core.transfer.cancel(); return self }
    /// Pauses the transfer until `resume()`.
    @discardableResult public func suspend() -> Self { _dataRequest.core.transfer.suspend(); return self }
    /// Starts the transfer, or continues it after `suspend()`.
    @discardableResult public func resume() -> Self { _dataRequest.core.transfer.resume(); return self }

    /// `"GET https://host/path (200)"`; the status appears once the response has arrived.
    public var description: String { _dataRequest.core.description }
    /// The request as a runnable `curl` command line (credentials redacted).
    public var debugDescription: String { _dataRequest.core.debugDescription }
    /// The request as a runnable `curl` command line.
    ///
    /// - Parameter redactingCredentials: Whether the password of `authenticate(user:password:)` or of
    ///   the URL, and the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `X-API-Key`,
    ///   are replaced by `***`. `true` by default, as in ``debugDescription``: pass `false` only where
    ///   the text stays private.
    public func cURLDescription(redactingCredentials: Bool = true) -> String {
        _dataRequest.core.cURLDescription(redactingCredentials: redactingCredentials)
    }

    // MARK: - Request-shaping modifiers (each gives a new, not yet started transfer)

    /// Answers HTTP authentication challenges (Basic or Digest, as the server asks) with a user and password.
    /// Gives a request with a new transfer.
    public func authenticate(user: String, password: String) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.credential = (user, password) }
        return copy
    }

    /// Adds an adapter that runs before each attempt of this request, after the session's.
    /// Gives a request with a new transfer.
    public func adapt(using adapter: RequestAdapter) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.adapters.append(adapter) }
        return copy
    }

    /// Adds a retrier asked after this request's failed attempts, before the session's.
    /// Gives a request with a new transfer.
    public func retry(using retrier: RequestRetrier) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.retriers.insert(retrier, at: 0) }
        return copy
    }

    /// Adds `interceptor` as both an adapter (after the session's) and a retrier (before the
    /// session's) of this request: an ``AuthenticationInterceptor``, say. Gives a request with a new transfer.
    public func intercept(using interceptor: RequestAdapter & RequestRetrier) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped {
            $0.adapters.append(interceptor)
            $0.retriers.insert(interceptor, at: 0)
        }
        return copy
    }

    /// Uses `handler` for this request's redirects instead of the session's
    /// ``SessionManager/redirectHandler``. Gives a request with a new transfer.
    public func redirect(using handler: RedirectHandler) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.redirectHandler = handler }
        return copy
    }

    /// Allows a body on a `GET` request (refused by default with ``CurlfireError/bodyDataInGETRequest``).
    /// Gives a request with a new transfer.
    public func allowingBodyInGET() -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.allowsBodyInGET = true }
        return copy
    }

    // MARK: - Progress

    /// Reports the response body's progress on `queue` (the session's callback queue by default):
    /// total from `Content-Length` (`-1` when unknown), non-decreasing, the last report complete.
    /// Attach before the request starts.
    @discardableResult
    public func downloadProgress(queue: DispatchQueue? = nil,
                                 closure: @escaping @Sendable (Progress) -> Void) -> Self {
        _dataRequest.core.transfer.addDownloadProgress(queue: queue ?? _dataRequest.core.session.callbackQueue, closure)
        return self
    }

    /// Reports the request body's progress on `queue` (the session's callback queue by default).
    /// Attach before the request starts.
    @discardableResult
    public func uploadProgress(queue: DispatchQueue? = nil,
                               closure: @escaping @Sendable (Progress) -> Void) -> Self {
        _dataRequest.core.transfer.addUploadProgress(queue: queue ?? _dataRequest.core.session.callbackQueue, closure)
        return self
    }
}
