import Foundation
import FoundationNetworking

/// Both a ``RequestAdapter`` and a ``RequestRetrier``, as in Alamofire 5: implement only the side
/// you need — the other is a no-op by default (the request is sent as it is; no retry).
///
/// Set one for every request of a session (``SessionManager/interceptor``, or the `interceptor:`
/// argument of ``SessionManager/init(configuration:serverTrustPolicyManager:callbackQueue:eventMonitors:cachedResponseHandler:interceptor:serializationQueue:)``)
/// or for one request (the `interceptor:` argument of `request`, `download` and `upload`).
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Returns `urlRequest` unchanged: the default for an interceptor that only retries.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }

    /// Never retries (`completion(false, 0)`): the default for an interceptor that only adapts.
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (_ shouldRetry: Bool, _ timeDelay: TimeInterval) -> Void) {
        completion(false, 0)
    }
}

/// A ``RequestInterceptor`` made of adapters and retriers, as Alamofire 5's `Interceptor`.
///
/// Adapters run in order, each on the previous one's result; the first failure stops the chain
/// and fails the adaptation with that error. Retriers are asked in order until one retries or
/// fails the request with an error (``RetryResult/doNotRetryWithError(_:)``); when none does, the
/// request is not retried.
public struct Interceptor: RequestInterceptor {
    /// The adapters, in the order they run.
    public let adapters: [any RequestAdapter]
    /// The retriers, in the order they are asked.
    public let retriers: [any RequestRetrier]

    /// Creates an interceptor from one adapter and one retrier.
    ///
    /// - Parameters:
    ///   - adapter: Runs before every attempt.
    ///   - retrier: Is asked after every failed attempt.
    public init(adapter: any RequestAdapter, retrier: any RequestRetrier) {
        adapters = [adapter]
        retriers = [retrier]
    }

    /// Creates an interceptor from lists of adapters, retriers and interceptors.
    ///
    /// - Parameters:
    ///   - adapters:     Adapters, run in order. Empty by default.
    ///   - retriers:     Retriers, asked in order. Empty by default.
    ///   - interceptors: Interceptors, each added after `adapters` and after `retriers`. Empty by default.
    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [],
                interceptors: [any RequestInterceptor] = []) {
        self.adapters = adapters + interceptors.map { $0 as any RequestAdapter }
        self.retriers = retriers + interceptors.map { $0 as any RequestRetrier }
    }

    /// Runs the synchronous form of every adapter, in order.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        try adapters.reduce(urlRequest) { try $1.adapt($0) }
    }

    /// Runs every adapter's completion form in order, each on the previous result; calls
    /// `completion` once.
    public func adapt(_ urlRequest: URLRequest, for session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        Self.adapt(urlRequest, with: adapters[...], for: session, completion: completion)
    }

    /// Runs every adapter's request-aware form in order, each on the previous result, so an adapter
    /// that needs the request (``IdempotencyKeyAdapter``) gets it; calls `completion` once.
    public func adapt(_ urlRequest: URLRequest, for request: any Request, session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        Self.adapt(urlRequest, with: adapters[...], for: session, request: request, completion: completion)
    }

    private static func adapt(_ urlRequest: URLRequest, with adapters: ArraySlice<any RequestAdapter>,
                              for session: SessionManager, request: (any Request)? = nil,
                              completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        guard let first = adapters.first else { return completion(.success(urlRequest)) }
        let rest = adapters.dropFirst()
        let next: @Sendable (Result<URLRequest, Error>) -> Void = { result in
            switch result {
            case let .success(adapted): adapt(adapted, with: rest, for: session, request: request, completion: completion)
            case .failure: completion(result)
            }
        }
        if let request {
            first.adapt(urlRequest, for: request, session: session, completion: next)
        } else {
            first.adapt(urlRequest, for: session, completion: next)
        }
    }

    /// Asks the retriers in order; calls `completion` once with the first answer that retries or
    /// fails with an error, else ``RetryResult/doNotRetry``.
    public func retry(_ request: any Request, for session: SessionManager, dueTo error: Error,
                      completion: @escaping @Sendable (RetryResult) -> Void) {
        Self.retry(request, with: retriers[...], for: session, dueTo: error, completion: completion)
    }

    /// The Alamofire 4 form of ``retry(_:for:dueTo:completion:)``: a failing retrier's error
    /// becomes "do not retry".
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (_ shouldRetry: Bool, _ timeDelay: TimeInterval) -> Void) {
        retry(request, for: manager, dueTo: error) { result in completion(result.retryRequired, result.delay ?? 0) }
    }

    private static func retry(_ request: any Request, with retriers: ArraySlice<any RequestRetrier>,
                              for session: SessionManager, dueTo error: Error,
                              completion: @escaping @Sendable (RetryResult) -> Void) {
        guard let first = retriers.first else { return completion(.doNotRetry) }
        let rest = retriers.dropFirst()
        first.retry(request, for: session, dueTo: error) { result in
            switch result {
            case .retry, .retryWithDelay, .doNotRetryWithError: completion(result)
            case .doNotRetry: retry(request, with: rest, for: session, dueTo: error, completion: completion)
            }
        }
    }
}
