import Foundation
import FoundationNetworking

/// What a ``RetryPolicy`` knows about a failed attempt when it decides.
struct RetryContext: Sendable {
    var method: HTTPMethod?
    var statusCode: Int?
    /// The transport cause, when the attempt failed below HTTP.
    var transportErrorCode: TransportErrorCode?
    /// Retries so far (0 when the first attempt failed).
    var retryCount: Int
    /// The response's `Retry-After` value, if any.
    var retryAfter: String?
    /// Whether the request carries an `Idempotency-Key` header.
    var hasIdempotencyKey: Bool
}

/// A ``RetryPolicy``'s answer, before its ``RetryBudget`` is asked.
enum RetryDecision: Equatable, Sendable {
    /// Retry after this many seconds.
    case retry(after: TimeInterval)
    /// Do not retry, and why.
    case doNotRetry(Refusal)

    /// Why not.
    enum Refusal: Equatable, Sendable {
        /// `retryLimit` retries were made.
        case limitReached
        /// The method, status code or transport cause is not retryable.
        case notRetryable
        /// The server's `Retry-After` is longer than `maximumRetryAfter`.
        case retryAfterTooLong
    }
}

extension RetryPolicy {
    /// POST and PATCH: retried, when not listed in `retryableHTTPMethods`, only with an
    /// `Idempotency-Key` (``IdempotencyKeyAdapter``).
    static let methodsRetryableWithIdempotencyKey: Set<HTTPMethod> = [.post, .patch]

    /// Decides about one failed attempt: a pure function of the context, `now` (for an HTTP-date
    /// `Retry-After`) and `draw`, which returns a number in `0...upper` (the jitter).
    func decide(_ context: RetryContext, now: Date, draw: (_ upper: TimeInterval) -> TimeInterval) -> RetryDecision {
        guard context.retryCount < retryLimit else { return .doNotRetry(.limitReached) }
        guard let method = context.method,
              retryableHTTPMethods.contains(method)
                || (context.hasIdempotencyKey && Self.methodsRetryableWithIdempotencyKey.contains(method)),
              isRetryable(statusCode: context.statusCode, transportErrorCode: context.transportErrorCode)
        else { return .doNotRetry(.notRetryable) }
        let serverDelay = context.retryAfter.flatMap { RetryAfter.delay(from: $0, now: now) }
        if let serverDelay, serverDelay > maximumRetryAfter { return .doNotRetry(.retryAfterTooLong) }
        let backoff = min(delay(forRetry: context.retryCount), Self.longestBackoff)
        let spread: TimeInterval
        switch jitter {
        case .none: return .retry(after: serverDelay ?? backoff)
        case .full: spread = backoff > 0 && backoff.isFinite ? min(max(draw(backoff), 0), backoff) : 0
        }
        return .retry(after: (serverDelay ?? 0) + spread)
    }

    /// A day: the longest exponential backoff used (a large `retryCount` overflows to infinity).
    static let longestBackoff: TimeInterval = 86_400

    /// The status code or, failing that, the transport cause is retryable.
    func isRetryable(statusCode: Int?, transportErrorCode: TransportErrorCode?) -> Bool {
        if let statusCode, retryableHTTPStatusCodes.contains(statusCode) { return true }
        guard let transportErrorCode else { return false }
        return retryableTransportErrorCodes.contains(transportErrorCode)
    }

    /// The context of `request`'s failed attempt. `Retry-After` is read only when the attempt
    /// failed with a status code: after a transport failure, `request.response` is an earlier
    /// attempt's.
    static func context(for request: any Request, error: Error) -> RetryContext {
        let sent = request.request
        let statusCode = (error as? CurlfireError)?.responseCode
        let response = statusCode == nil ? nil : request.response
        return RetryContext(method: sent?.method, statusCode: statusCode,
                            transportErrorCode: (error as? CurlfireError)?.transportErrorCode,
                            retryCount: request.retryCount,
                            retryAfter: response?.value(forHTTPHeaderField: "Retry-After"),
                            hasIdempotencyKey: sent?.value(forHTTPHeaderField: IdempotencyKeyAdapter.headerName) != nil)
    }
}
