import Foundation
import FoundationNetworking

/// What the cache does with a request before its attempt: answer it from the store, send it
/// (perhaps made conditional on a stored response), or fail it without sending.
///
/// ``decide(_:headers:entry:now:shared:)`` is pure: the request's cache policy and directives, the
/// stored entry (already selected by `Vary`) and the clock decide (CacheDecisionTests).
enum CacheDecision: Equatable, Sendable {
    /// Serve the stored entry without sending anything. `revalidateInBackground`: a
    /// `stale-while-revalidate` answer whose refresh is sent afterwards.
    case serve(CachedEntry, CacheStatus, revalidateInBackground: Bool)
    /// Send `request`. `candidate` is the stored entry it was made conditional on (a 304 is merged
    /// into it) or that may still be served on an error (`stale-if-error`).
    case load(URLRequest, candidate: CachedEntry?)
    /// Send nothing: the request may only be answered from the cache and no usable entry exists
    /// (`.returnCacheDataDontLoad`, `only-if-cached`).
    case fail

    /// Decides for one request.
    ///
    /// - Parameters:
    ///   - request: the request as the attempt would send it.
    ///   - headers: its effective headers (its own plus the session's defaults it does not set).
    ///   - entry:   the stored entry for its URL, if one matched its `Vary` headers.
    ///   - now:     the clock.
    ///   - shared:  whether the cache acts as a shared cache (`s-maxage`, `proxy-revalidate`).
    static func decide(_ request: URLRequest, headers: [String: String], entry: CachedEntry?, now: Date,
                       shared: Bool) -> CacheDecision {
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard method == "GET" || method == "HEAD", !CacheRules.isUserConditional(headers) else {
            return .load(request, candidate: nil)
        }
        let directives = CacheControl(request: headers)
        let cacheOnly = directives.onlyIfCached || request.cachePolicy == .returnCacheDataDontLoad
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            return .load(request, candidate: nil)
        default:
            break
        }
        guard let entry else { return cacheOnly ? .fail : .load(request, candidate: nil) }
        let age = Freshness.currentAge(of: entry, now: now)
        let lifetime = Freshness.lifetime(of: entry, shared: shared)
        let isFresh = age < lifetime
        switch request.cachePolicy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return .serve(entry, isFresh ? .hit : .stale, revalidateInBackground: false)
        case .reloadRevalidatingCacheData:
            return revalidate(request, entry, method: method, cacheOnly: cacheOnly)
        default:
            break
        }
        let stored = entry.cacheControl
        let acceptable = !directives.noCache && !stored.noCache
            && directives.maxAge.map { age <= TimeInterval($0) } ?? true
            && directives.minFresh.map { lifetime - age >= TimeInterval($0) } ?? true
        if acceptable, isFresh { return .serve(entry, .hit, revalidateInBackground: false) }
        let staleness = age - lifetime
        let mayServeStale = !isFresh && !directives.noCache && !stored.noCache && !stored.mustRevalidate
            && !(shared && stored.proxyRevalidate) && directives.maxAge.map { age <= TimeInterval($0) } ?? true
        if mayServeStale {
            if let maxStale = directives.maxStale, maxStale == Int.max || staleness <= TimeInterval(maxStale) {
                return .serve(entry, .stale, revalidateInBackground: false)
            }
            if method == "GET", let window = stored.staleWhileRevalidate, staleness <= TimeInterval(window), !cacheOnly {
                return .serve(entry, .stale, revalidateInBackground: true)
            }
        }
        return revalidate(request, entry, method: method, cacheOnly: cacheOnly)
    }

    /// Sends the request conditional on the entry (a HEAD is sent as it is: its answer carries no body
    /// to merge), or fails when the network may not be used.
    private static func revalidate(_ request: URLRequest, _ entry: CachedEntry, method: String,
                                   cacheOnly: Bool) -> CacheDecision {
        if cacheOnly { return .fail }
        guard method == "GET" else { return .load(request, candidate: nil) }
        return .load(CacheRules.conditionalRequest(request, for: entry), candidate: entry)
    }

    /// Whether a failed exchange may be answered with the stale candidate (RFC 5861 §4): a transport
    /// error or a 500, 502, 503 or 504, within the response's or the request's `stale-if-error`
    /// window, unless `must-revalidate` forbids serving it stale.
    static func servesStaleOnError(_ entry: CachedEntry, status: Int?, transportFailed: Bool,
                                   requestHeaders: [String: String], now: Date, shared: Bool) -> Bool {
        guard transportFailed || [500, 502, 503, 504].contains(status ?? 0) else { return false }
        let stored = entry.cacheControl
        guard !stored.mustRevalidate, !(shared && stored.proxyRevalidate) else { return false }
        let window = CacheControl(request: requestHeaders).staleIfError ?? stored.staleIfError
        guard let window else { return false }
        let staleness = Freshness.currentAge(of: entry, now: now) - Freshness.lifetime(of: entry, shared: shared)
        return staleness <= TimeInterval(window)
    }
}
