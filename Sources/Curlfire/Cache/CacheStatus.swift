/// Where a data response came from: the network, or the session's ``ResponseCache``.
///
/// Every ``DefaultDataResponse`` and ``DataResponse`` carries one (``DataResponse/cacheStatus``).
/// Without a cache (the default) it is always ``network``.
public enum CacheStatus: Sendable, Hashable, CustomStringConvertible {
    /// The response came from the server (it may have been stored afterwards).
    case network
    /// Served from the cache: no request was sent. The ``Timeline`` still spans the lookup.
    case hit
    /// The stored response was revalidated: a conditional request got `304 Not Modified`, and the
    /// stored response, its headers refreshed by the 304's, was delivered.
    case revalidated
    /// A stored response past its freshness lifetime was served, because the request's cache policy
    /// (`.returnCacheDataElseLoad`, `.returnCacheDataDontLoad`) or a directive (`max-stale`,
    /// `stale-while-revalidate`, `stale-if-error`) allowed it.
    case stale

    /// `network`, `hit`, `revalidated` or `stale`.
    public var description: String {
        switch self {
        case .network: return "network"
        case .hit: return "hit"
        case .revalidated: return "revalidated"
        case .stale: return "stale"
        }
    }
}
