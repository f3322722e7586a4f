import Foundation
import FoundationNetworking

/// Retries only attempts whose connection was lost (``TransportErrorCode/connectionLost``), as
/// Alamofire 5's `ConnectionLostRetryPolicy`: a ``RetryPolicy`` with no retryable status codes.
public struct ConnectionLostRetryPolicy: RequestInterceptor {
    /// The policy underneath: `retryableHTTPStatusCodes` empty, `retryableTransportErrorCodes`
    /// `[.connectionLost]`.
    public let policy: RetryPolicy

    /// Creates the policy.
    ///
    /// - Parameters:
    ///   - retryLimit:              The most retries. `2` by default.
    ///   - exponentialBackoffBase:  The base of the delay. `2` by default.
    ///   - exponentialBackoffScale: The scale of the delay (delay = scale × base^retryCount). `0.5` by default.
    ///   - retryableHTTPMethods:    Methods that may be retried. The idempotent ones by default
    ///                              (`DELETE`, `GET`, `HEAD`, `OPTIONS`, `PUT`, `TRACE`).
    public init(retryLimit: Int = RetryPolicy.defaultRetryLimit,
                exponentialBackoffBase: Int = RetryPolicy.defaultExponentialBackoffBase,
                exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
                retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods) {
        policy = RetryPolicy(retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
                             exponentialBackoffScale: exponentialBackoffScale,
                             retryableHTTPMethods: retryableHTTPMethods, retryableHTTPStatusCodes: [],
                             retryableTransportErrorCodes: [.connectionLost])
    }

    /// Retries a lost connection of a retryable method, within the limit, after the policy's delay.
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (_ shouldRetry: Bool, _ timeDelay: TimeInterval) -> Void) {
        policy.should(manager, retry: request, with: error, completion: completion)
    }
}

extension ConnectionLostRetryPolicy: AttemptObserver {
    /// Forwards to the policy underneath.
    func attemptEnded(_ report: AttemptReport, session: SessionManager) {
        policy.attemptEnded(report, session: session)
    }
}
