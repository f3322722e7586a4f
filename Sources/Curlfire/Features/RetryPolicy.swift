import Foundation
import FoundationNetworking

/// A ``RequestRetrier`` with a retry limit and exponential backoff; a ``RequestInterceptor`` (adapting
/// nothing) so it can be given as `interceptor:`, as in Alamofire 5.
///
/// Retries an attempt when the request's method is retryable (idempotent methods by default;
/// `POST` and `PATCH`, when not listed, only with an `Idempotency-Key` header, see
/// ``IdempotencyKeyAdapter``) and either its status code is retryable (408, 429, 500, 502, 503,
/// 504 by default) or it failed with a retryable transport cause (timed out, connection lost,
/// cannot connect, cannot resolve host by default).
///
/// The backoff before retry *n* (counting from 0) is `exponentialBackoffScale ×
/// exponentialBackoffBase^n` seconds (``delay(forRetry:)``). With ``Jitter/full`` (the default) the
/// delay is drawn uniformly between 0 and that backoff. A response's `Retry-After` (delta-seconds
/// or an HTTP date) is honoured: the delay is the server's plus the jitter's draw (exactly the
/// server's with ``Jitter/none``), and a `Retry-After` longer than ``maximumRetryAfter`` means the
/// request is not retried. With a ``RetryBudget``, a retry that the host's budget cannot pay for is
/// not made. Event monitors see the delay waited in ``EventMonitor/request(_:willRetryAfter:)``.
public struct RetryPolicy: RequestInterceptor {
    /// The default number of retries: 2.
    public static let defaultRetryLimit = 2
    /// The default backoff base: 2.
    public static let defaultExponentialBackoffBase = 2
    /// The default backoff scale: 0.5 seconds.
    public static let defaultExponentialBackoffScale = 0.5
    /// The idempotent methods (RFC 9110): `DELETE`, `GET`, `HEAD`, `OPTIONS`, `PUT`, `TRACE`.
    public static let defaultRetryableHTTPMethods: Set<HTTPMethod> = [.delete, .get, .head, .options, .put, .trace]
    /// 408, 429, 500, 502, 503, 504.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The longest `Retry-After` honoured by default: 60 seconds.
    public static let defaultMaximumRetryAfter: TimeInterval = 60
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
    /// The longest `Retry-After` honoured, in seconds; a longer one means no retry.
    public let maximumRetryAfter: TimeInterval
    /// How delays are spread.
    public let jitter: Jitter
    /// The limit on retries across requests, per host; `nil` for none.
    public let budget: RetryBudget?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - retryLimit:                   The most retries. `2` by default.
    ///   - exponentialBackoffBase:       The base of the backoff. `2` by default.
    ///   - exponentialBackoffScale:      The scale of the backoff, in seconds. `0.5` by default.
    ///   - retryableHTTPMethods:         Methods that may be retried. The idempotent ones by default.
    ///   - retryableHTTPStatusCodes:     Status codes retried. 408, 429, 500, 502, 503, 504 by default.
    ///   - retryableTransportErrorCodes: Transport causes retried. Timed out, connection lost, cannot
    ///                                   connect, cannot resolve host by default.
    ///   - maximumRetryAfter:            The longest `Retry-After` honoured, in seconds: a longer one
    ///                                   means no retry. `60` by default.
    ///   - jitter:                       How delays are spread. ``Jitter/full`` by default.
    ///   - budget:                       A limit on retries across requests, per host. `nil` (none)
    ///                                   by default.
    public init(retryLimit: Int = defaultRetryLimit,
                exponentialBackoffBase: Int = defaultExponentialBackoffBase,
                exponentialBackoffScale: Double = defaultExponentialBackoffScale,
                retryableHTTPMethods: Set<HTTPMethod> = defaultRetryableHTTPMethods,
                retryableHTTPStatusCodes: Set<Int> = defaultRetryableHTTPStatusCodes,
                retryableTransportErrorCodes: Set<TransportErrorCode> = defaultRetryableTransportErrorCodes,
                maximumRetryAfter: TimeInterval = defaultMaximumRetryAfter,
                jitter: Jitter = .full,
                budget: RetryBudget? = nil) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableTransportErrorCodes = retryableTransportErrorCodes
        self.maximumRetryAfter = maximumRetryAfter.isNaN ? 0 : maximumRetryAfter
        self.jitter = jitter
        self.budget = budget
    }

    /// The backoff before retry number `retryCount` (0 for the first retry), before jitter.
    public func delay(forRetry retryCount: Int) -> TimeInterval {
        pow(Double(exponentialBackoffBase), Double(retryCount)) * exponentialBackoffScale
    }

    /// Whether an attempt of `method` that ended with `statusCode` / `error` should be retried,
    /// ignoring the limit, `Retry-After` and the budget (and any `Idempotency-Key`).
    public func shouldRetry(method: HTTPMethod?, statusCode: Int?, error: Error) -> Bool {
        guard let method, retryableHTTPMethods.contains(method) else { return false }
        return isRetryable(statusCode: statusCode, transportErrorCode: (error as? CurlfireError)?.transportErrorCode)
    }

    /// Applies the rules, the limit, `Retry-After`, the jitter and the budget.
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        let decision = decide(Self.context(for: request, error: error), now: Date(),
                              draw: { Double.random(in: 0...$0) })
        guard case let .retry(delay) = decision else { return completion(false, 0) }
        if let budget, !budget.withdraw(host: ResilienceKey.key(for: request.request?.url)) {
            return completion(false, 0)
        }
        completion(true, delay)
    }
}

extension RetryPolicy: AttemptObserver {
    /// Counts each request's first attempt in the budget.
    func attemptEnded(_ report: AttemptReport, session: SessionManager) {
        guard let budget, report.isFirstAttempt else { return }
        budget.deposit(host: report.host)
    }
}
