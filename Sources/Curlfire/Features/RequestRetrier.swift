import Foundation
import FoundationNetworking

/// Decides whether a failed attempt is sent again, and after what delay, as in Alamofire 4.
///
/// Asked off the engine thread after an attempt that failed below HTTP (a transport error) or
/// ended with a status code of 400 or more — then `error` is
/// ``CurlfireError/ResponseValidationFailureReason/unacceptableStatusCode(code:)``. When it
/// declines a status-code failure, the response is delivered as it is (validators decide). A
/// cancelled request is never retried and the retrier is not asked. Adapters run again on each
/// retry; `request.retryCount` counts the retries so far.
public protocol RequestRetrier: Sendable {
    /// Calls `completion` exactly once with whether to retry and the delay in seconds.
    func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                completion: @escaping @Sendable (_ shouldRetry: Bool, _ timeDelay: TimeInterval) -> Void)

    /// Decides with a ``RetryResult`` — which can also fail the request with an error — and calls
    /// `completion` exactly once: the form the engine calls. The default implementation asks
    /// ``should(_:retry:with:completion:)``.
    func retry(_ request: any Request, for session: SessionManager, dueTo error: Error,
               completion: @escaping @Sendable (RetryResult) -> Void)
}
