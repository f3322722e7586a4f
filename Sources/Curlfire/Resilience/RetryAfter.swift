import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): delta-seconds (`120`) or an HTTP date
/// (`Fri, 31 Dec 1999 23:59:59 GMT`).
enum RetryAfter {
    /// The seconds to wait from `now`, or `nil` when `value` is neither form. A date in the past
    /// is 0 (retry at once); a delta too large to represent is `.infinity` (past any cap).
    static func delay(from value: String, now: Date) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return text.count > 15 ? .infinity : TimeInterval(text)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
