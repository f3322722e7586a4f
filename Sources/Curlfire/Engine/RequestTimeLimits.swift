import Foundation

/// A request's own time limits, beside the session's idle timeout (`timeoutIntervalForRequest`)
/// and total timeout (`timeoutIntervalForResource`). Both `nil` by default: a request that sets
/// neither costs nothing more.
struct RequestTimeLimits: Sendable, Equatable {
    /// The most the whole request may take, in seconds (``DataTransferRequest/deadline(_:)``).
    var deadline: TimeInterval?
    /// The most connecting may take on each attempt, in seconds — TCP and the TLS handshake
    /// (``DataTransferRequest/connectTimeout(_:)``).
    var connectTimeout: TimeInterval?

    /// The request's total time: the earlier of the session's resource timeout and the deadline.
    func resourceTimeout(session: TimeInterval) -> TimeInterval {
        guard let deadline else { return session }
        return min(session, deadline)
    }

    /// The first limit that is not a positive, finite number of seconds, as a typed error.
    var validationError: CurlfireError? {
        if let deadline, !Self.isValid(deadline) { return .invalidTimeout(name: "deadline", value: deadline) }
        if let connectTimeout, !Self.isValid(connectTimeout) {
            return .invalidTimeout(name: "connectTimeout", value: connectTimeout)
        }
        return nil
    }

    /// Whether `seconds` is a usable limit (positive and finite).
    static func isValid(_ seconds: TimeInterval) -> Bool { seconds.isFinite && seconds > 0 }

    /// `seconds` made safe for libcurl's milliseconds: at least 1 ms, at most about 24 days
    /// (a `long` of milliseconds stays far from overflowing); a non-finite value is the maximum.
    static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds.isFinite else { return seconds.isNaN ? 0.001 : 2_000_000 }
        return min(max(seconds, 0.001), 2_000_000)
    }
}
