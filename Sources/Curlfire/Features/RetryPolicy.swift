import Foundation
import FoundationNetworking

/// A ``RequestRetrier`` with a retry limit and exponential backoff; a ``RequestInterceptor`` (adapting
/// nothing) so it can be given as `interceptor:`, as in Alamofire 5.
///
/// Retries an attempt when the request's method is retryable (idempotent methods by default —
/// never `POST` or `PATCH` unless listed) and either its status code is retryable (408, 500, 502,
/// 503, 504 by default) or it failed with a retryable transport cause (timed out, connection lost,
/// cannot connect, cannot resolve host by default). The delay before retry *n* (counting from 0)
/// is `exponentialBackoffScale × exponentialBackoffBase^n` seconds.
public struct RetryPolicy: RequestInterceptor {
    /// The default number of retries: 2.
    public static let defaultRetryLimit = 2
    /// The default backoff base: 2.
    public static let defaultExponentialBackoffBase = 2
    /// The default backoff scale: 0.5 seconds.
    public static let defaultExponentialBackoffScale = 0.5
    /// The idempotent methods (RFC 9110): `DELETE`, `GET`, `HEAD`, `OPTIONS`, `PUT`, `TRACE`.
    public static let defaultRetryableHTTPMethods: Set<HTTPMethod> = [.delete, .get, .head, .options, .put, .trace]
    /// 408, 500, 502, 503, 504.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// Timed out, connection lost, cannot connect, cannot resolve host.
    public static let defaultRetryableTransportErrorCodes: Set<TransportErrorCode> = [
        .timedOut, .connectionLost, .cannotConnect, .cannotResolveHost,
    ]

    /// How many retries at most.
    public let retryLimit: Int
    /// The backoff base.
    public let exponentialBackoffBase: Int
    /// The backoff scale, in seconds.
    public let exponentialBackoffScale: Double
    /// Methods that may be retried.
    public let retryableHTTPMethods: Set<HTTPMethod>
    /// Status codes that cause a retry.
    public let retryableHTTPStatusCodes: Set<Int>
    /// Transport causes that cause a retry.
    public let retryableTransportErrorCodes: Set<TransportErrorCode>

    /// Creates a policy; every argument has the documented default.
    public init(retryLimit: Int = defaultRetryLimit,
                exponentialBackoffBase: Int = defaultExponentialBackoffBase,
                exponentialBackoffScale: Double = defaultExponentialBackoffScale,
                retryableHTTPMethods: Set<HTTPMethod> = defaultRetryableHTTPMethods,
                retryableHTTPStatusCodes: Set<Int> = defaultRetryableHTTPStatusCodes,
                retryableTransportErrorCodes: Set<TransportErrorCode> = defaultRetryableTransportErrorCodes) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableTransportErrorCodes = retryableTransportErrorCodes
    }

    /// The delay before retry number `retryCount` (0 for the first retry).
    public func delay(forRetry retryCount: Int) -> TimeInterval {
        pow(Double(exponentialBackoffBase), Double(retryCount)) * exponentialBackoffScale
    }

    /// Whether an attempt of `method` that ended with `statusCode` / `error` should be retried,
    /// ignoring the limit.
    public func shouldRetry(method: HTTPMethod?, statusCode: Int?, error: Error) -> Bool {
        guard let method, retryableHTTPMethods.contains(method) else { return false }
        if let statusCode, retryableHTTPStatusCodes.contains(statusCode) { return true }
        guard let code = (error as? CurlfireError)?.transportErrorCode else { return false }
        return retryableTransportErrorCodes.contains(code)
    }

    /// Applies the rules and the limit.
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        let retryCount = request.retryCount
        let status = (error as? CurlfireError)?.responseCode
        guard retryCount < retryLimit,
              shouldRetry(method: request.request?.method, statusCode: status, error: error)
        else {
            completion(false, 0)
            return
        }
        completion(true, delay(forRetry: retryCount))
    }
}
