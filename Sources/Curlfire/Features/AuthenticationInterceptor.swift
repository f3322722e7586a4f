import Foundation
import FoundationNetworking

/// A credential an ``Authenticator`` applies to requests: an OAuth token pair, say.
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before it is used (it expires within a minute, say).
    /// Checked before every attempt.
    var requiresRefresh: Bool { get }
}

/// What an ``AuthenticationInterceptor`` needs to know about a token-based API.
public protocol Authenticator: AnyObject, Sendable {
    /// The credential type.
    associatedtype Credential: AuthenticationCredential

    /// Applies `credential` to `urlRequest` (sets `Authorization: Bearer …`, typically).
    func apply(_ credential: Credential, to urlRequest: inout URLRequest)

    /// Refreshes `credential` and calls `completion` exactly once with the new one or an error.
    /// Runs once however many requests need it at the same time; they wait for it.
    func refresh(_ credential: Credential, for session: SessionManager,
                 completion: @escaping @Sendable (Result<Credential, Error>) -> Void)

    /// Whether `response` says the request failed because of its credential (a 401, usually).
    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse,
                    failDueToAuthenticationError error: Error) -> Bool

    /// Whether `urlRequest` was sent with `credential` (when not, the credential was refreshed in
    /// the meantime, and the request is retried with the new one without another refresh).
    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: Credential) -> Bool
}

/// Why an ``AuthenticationInterceptor`` failed a request. Adapting failures arrive as
/// ``CurlfireError/requestAdaptationFailed(error:)``, retry failures as
/// ``CurlfireError/requestRetryFailed(retryError:originalError:)``, with this as the inner error.
public enum AuthenticationError: Error, Sendable {
    /// The interceptor has no credential.
    case missingCredential
    /// More refreshes than ``AuthenticationInterceptor/RefreshWindow`` allows: the refresh keeps
    /// giving credentials the server rejects.
    case excessiveRefresh
}

/// Applies a credential to every request, refreshes it when it expires or the server rejects it,
/// and retries the requests that failed because of it — as Alamofire 5's interceptor of the same name.
///
/// Use it as both adapter and retrier: `session.adapter = interceptor; session.retrier = interceptor`,
/// or per request `.intercept(using: interceptor)`. However many requests need a refresh at the
/// same time, ``Authenticator/refresh(_:for:completion:)`` runs once; the others wait, then go out
/// with the new credential. More than ``RefreshWindow/maximumAttempts`` refreshes within
/// ``RefreshWindow/interval`` fail with ``AuthenticationError/excessiveRefresh`` instead of looping.
///
/// `@unchecked Sendable`: `authenticator` and `refreshWindow` are constants, and every mutable field
/// (the credential, the refresh in progress, the waiting adapts and retries) is in `state`, which
/// is read and written only under the interceptor's lock; completions run after the lock is released.
public final class AuthenticationInterceptor<AuthenticatorType: Authenticator>: RequestInterceptor,
    @unchecked Sendable {
    /// The credential type.
    public typealias Credential = AuthenticatorType.Credential

    /// How many refreshes are allowed within how long.
    public struct RefreshWindow: Sendable {
        /// The window, in seconds. 30 by default.
        public let interval: TimeInterval
        /// The most refreshes within the window. 5 by default.
        public let maximumAttempts: Int

        /// Creates a window; defaults: 30 seconds, 5 refreshes.
        public init(interval: TimeInterval = 30, maximumAttempts: Int = 5) {
            self.interval = interval
            self.maximumAttempts = maximumAttempts
        }
    }

    private struct AdaptOperation {
        let urlRequest: URLRequest
        let completion: @Sendable (Result<URLRequest, Error>) -> Void
    }

    private struct State {
        var credential: Credential?
        var isRefreshing = false
        var refreshTimestamps: [TimeInterval] = []
        var adaptOperations: [AdaptOperation] = []
        var requestsToRetry: [@Sendable (RetryResult) -> Void] = []
    }

    /// The authenticator.
    public let authenticator: AuthenticatorType
    /// The refresh cap.
    public let refreshWindow: RefreshWindow?
    private let lock = Lock.make()
    private var state: State

    /// The current credential. Setting it does not refresh anything.
    public var credential: Credential? {
        get { lock.withLock { state.credential } }
        set { lock.withLock { state.credential = newValue } }
    }

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - authenticator: Applies and refreshes credentials.
    ///   - credential:    The credential to start with. `nil` by default (requests then fail with
    ///                    ``AuthenticationError/missingCredential`` until one is set).
    ///   - refreshWindow: The refresh cap. `RefreshWindow()` by default (5 per 30 s); `nil` for none.
    public init(authenticator: AuthenticatorType, credential: Credential? = nil,
                refreshWindow: RefreshWindow? = RefreshWindow()) {
        self.authenticator = authenticator
        self.refreshWindow = refreshWindow
        state = State(credential: credential)
    }

    // MARK: - Adapting

    /// Applies the credential when it needs no refresh; throws otherwise (the engine uses the
    /// asynchronous form, which waits for the refresh).
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        guard let credential = credential else { throw AuthenticationError.missingCredential }
        var request = urlRequest
        authenticator.apply(credential, to: &request)
        return request
    }

    /// Applies the credential, first waiting for a refresh when it needs one.
    public func adapt(_ urlRequest: URLRequest, for session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        lock.lock()
        guard let credential = state.credential else {
            lock.unlock()
            return completion(.failure(AuthenticationError.missingCredential))
        }
        if credential.requiresRefresh || state.isRefreshing {
            state.adaptOperations.append(AdaptOperation(urlRequest: urlRequest, completion: completion))
            let start = startRefreshLocked()
            lock.unlock()
            if let start { refresh(start, for: session) }
            return
        }
        lock.unlock()
        var request = urlRequest
        authenticator.apply(credential, to: &request)
        completion(.success(request))
    }

    // MARK: - Retrying

    /// The Alamofire 4 form: answers from ``retry(_:for:dueTo:completion:)`` (an error counts as no).
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        retry(request, for: manager, dueTo: error) { completion($0.retryRequired, $0.delay ?? 0) }
    }

    /// Retries requests that failed because of their credential, refreshing it once for all of them.
    public func retry(_ request: any Request, for session: SessionManager, dueTo error: Error,
                      completion: @escaping @Sendable (RetryResult) -> Void) {
        guard let urlRequest = request.request, let response = request.response,
              authenticator.didRequest(urlRequest, with: response, failDueToAuthenticationError: error)
        else { return completion(.doNotRetry) }
        lock.lock()
        guard let credential = state.credential else {
            lock.unlock()
            return completion(.doNotRetryWithError(AuthenticationError.missingCredential))
        }
        guard authenticator.isRequest(urlRequest, authenticatedWith: credential) else {
            // Refreshed since this request went out: retry with the new credential.
            lock.unlock()
            return completion(.retry)
        }
        state.requestsToRetry.append(completion)
        let start = startRefreshLocked()
        lock.unlock()
        if let start { refresh(start, for: session) }
    }

    // MARK: - Refreshing

    /// Starts a refresh unless one runs; returns the credential to refresh, or `nil` (one is
    /// running, or the cap was hit and every waiter has been failed). Called under the lock.
    private func startRefreshLocked() -> Credential? {
        guard !state.isRefreshing, let credential = state.credential else { return nil }
        if let window = refreshWindow {
            let now = Date.timeIntervalSinceReferenceDate
            state.refreshTimestamps.removeAll { now - $0 > window.interval }
            if state.refreshTimestamps.count >= window.maximumAttempts {
                let retries = state.requestsToRetry
                let adapts = state.adaptOperations
                state.requestsToRetry.removeAll()
                state.adaptOperations.removeAll()
                DispatchQueue.global().async {
                    retries.forEach { $0(.doNotRetryWithError(AuthenticationError.excessiveRefresh)) }
                    adapts.forEach { $0.completion(.failure(AuthenticationError.excessiveRefresh)) }
                }
                return nil
            }
            state.refreshTimestamps.append(now)
        }
        state.isRefreshing = true
        return credential
    }

    private func refresh(_ credential: Credential, for session: SessionManager) {
        let once = OnceFlag()
        authenticator.refresh(credential, for: session) { result in
            guard once.claim() else { return }
            self.didRefresh(result)
        }
    }

    private func didRefresh(_ result: Result<Credential, Error>) {
        lock.lock()
        if case let .success(credential) = result { state.credential = credential }
        state.isRefreshing = false
        let retries = state.requestsToRetry
        let adapts = state.adaptOperations
        state.requestsToRetry.removeAll()
        state.adaptOperations.removeAll()
        let credential = state.credential
        lock.unlock()
        switch result {
        case .success:
            retries.forEach { $0(.retry) }
            for operation in adapts {
                var request = operation.urlRequest
                if let credential { authenticator.apply(credential, to: &request) }
                operation.completion(.success(request))
            }
        case let .failure(error):
            retries.forEach { $0(.doNotRetryWithError(error)) }
            adapts.forEach { $0.completion(.failure(error)) }
        }
    }
}
