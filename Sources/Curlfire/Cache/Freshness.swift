import Foundation

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2). Pure: every input is
/// in the entry or passed in.
enum Freshness {
    /// Status codes a response may be heuristically fresh with (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The most a heuristic lifetime may be: one day.
    static let heuristicCap: TimeInterval = 24 * 3600
    /// The share of `Date` − `Last-Modified` a heuristic lifetime is (RFC 9111 §4.2.2 suggests 10 %).
    static let heuristicFraction = 0.1

    /// `current_age` (RFC 9111 §4.2.3): the corrected initial age plus the time the entry has been
    /// resident.
    static func currentAge(of entry: CachedEntry, now: Date) -> TimeInterval {
        let dateValue = entry.value("date").flatMap(HTTPDate.parse) ?? entry.responseTime
        let ageValue = TimeInterval(CacheControl.seconds(entry.value("age").map { String(CacheControl.trimmingBlanks($0[...])) }) ?? 0)
        let apparentAge = max(0, entry.responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(entry.responseTime))
        return correctedInitialAge + residentTime
    }

    /// `freshness_lifetime` (RFC 9111 §4.2.1): `s-maxage` (shared caches), `max-age`,
    /// `Expires` − `Date`, else the heuristic for heuristically cacheable codes or `public`
    /// responses with `Last-Modified`; 0 otherwise.
    static func lifetime(of entry: CachedEntry, shared: Bool) -> TimeInterval {
        let directives = entry.cacheControl
        if shared, let sharedMaxAge = directives.sharedMaxAge { return TimeInterval(sharedMaxAge) }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        let date = entry.value("date").flatMap(HTTPDate.parse) ?? entry.responseTime
        if let expires = entry.value("expires") {
            guard let expiry = HTTPDate.parse(expires) else { return 0 } // invalid: already expired
            return max(0, expiry.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(entry.statusCode) || directives.isPublic,
              let lastModified = entry.value("last-modified").flatMap(HTTPDate.parse) else { return 0 }
        return min(heuristicCap, max(0, date.timeIntervalSince(lastModified)) * heuristicFraction)
    }
}
