import Foundation
import FoundationNetworking

/// What a ``RequestRetrier`` decided, in the richer form of Alamofire 5: it can also fail the
/// request with its own error.
public enum RetryResult: Sendable {
    /// Retry now.
    case retry
    /// Retry after the delay, in seconds.
    case retryWithDelay(TimeInterval)
    /// Do not retry; the next retrier is asked, and the response is delivered if none retries.
    case doNotRetry
    /// Do not retry and fail the request with
    /// ``CurlfireError/requestRetryFailed(retryError:originalError:)``; no other retrier is asked.
    case doNotRetryWithError(Error)

    /// Whether this says to retry.
    public var retryRequired: Bool {
        switch self {
        case .retry, .retryWithDelay: return true
        case .doNotRetry, .doNotRetryWithError: return false
        }
    }

    /// The delay before retrying, if any.
    public var delay: TimeInterval? {
        if case let .retryWithDelay(delay) = self { return delay } else { return nil }
    }

    /// The error to fail with, if any.
    public var error: Error? {
        if case let .doNotRetryWithError(error) = self { return error } else { return nil }
    }
}

extension RequestRetrier {
    /// Decides with a ``RetryResult`` and calls `completion` exactly once, on any thread: the form
    /// the engine calls. The default implementation asks the Alamofire 4 form
    /// (``should(_:retry:with:completion:)``): `true` becomes ``RetryResult/retryWithDelay(_:)``
    /// (``RetryResult/retry`` for a zero delay), `false` ``RetryResult/doNotRetry``.
    public func retry(_ request: any Request, for session: SessionManager, dueTo error: Error,
                      completion: @escaping @Sendable (RetryResult) -> Void) {
        should(session, retry: request, with: error) { shouldRetry, delay in
            completion(shouldRetry ? (delay > 0 ? .retryWithDelay(delay) : .retry) : .doNotRetry)
        }
    }
}

/// A ``RequestRetrier`` from a closure that answers with a ``RetryResult`` — the way to fail a
/// request with ``CurlfireError/requestRetryFailed(retryError:originalError:)``.
public struct Retrier: RequestRetrier {
    /// The decision: the request, the session, the error of the failed attempt, and the completion
    /// to call exactly once.
    public typealias Decision = @Sendable (_ request: any Request, _ session: SessionManager, _ error: Error,
                                           _ completion: @escaping @Sendable (RetryResult) -> Void) -> Void

    private let decide: Decision

    /// Creates a retrier from `decide`.
    public init(_ decide: @escaping Decision) {
        self.decide = decide
    }

    /// Runs the closure.
    public func retry(_ request: any Request, for session: SessionManager, dueTo error: Error,
                      completion: @escaping @Sendable (RetryResult) -> Void) {
        decide(request, session, error, completion)
    }

    /// The Alamofire 4 form: retries when the closure says so (an error counts as no).
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        decide(request, manager, error) { result in completion(result.retryRequired, result.delay ?? 0) }
    }
}
