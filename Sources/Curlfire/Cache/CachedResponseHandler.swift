import Foundation
import FoundationNetworking

/// A response about to be stored in a ``ResponseCache``, as a ``CachedResponseHandler`` sees it.
public struct CachedResponse: Sendable {
    /// Where the response may be kept.
    public enum StoragePolicy: Sendable, Hashable {
        /// In memory and on disk. The default.
        case allowed
        /// In memory only.
        case allowedInMemoryOnly
        /// Not at all.
        case notAllowed
    }

    /// The response (status and headers) to store.
    public var response: HTTPURLResponse
    /// The body to store.
    public var data: Data
    /// Where it may be kept. ``StoragePolicy/allowed`` by default.
    public var storagePolicy: StoragePolicy

    /// Creates a cached response.
    ///
    /// - Parameters:
    ///   - response:      The response.
    ///   - data:          Its body.
    ///   - storagePolicy: Where it may be kept. `.allowed` by default.
    public init(response: HTTPURLResponse, data: Data, storagePolicy: StoragePolicy = .allowed) {
        self.response = response
        self.data = data
        self.storagePolicy = storagePolicy
    }
}

/// Decides whether (and in what form) a response the cache would store is stored — Alamofire 5's
/// hook. Set one on the session (`SessionManager(…, cachedResponseHandler:)`) or per request
/// (``DataTransferRequest/cacheResponse(using:)``, which wins).
///
/// Asked only for responses the cache rules allow storing; it cannot make a `no-store` response storable.
public protocol CachedResponseHandler: Sendable {
    /// Called once, off the engine thread, before `response` is stored for `request`.
    ///
    /// - Parameters:
    ///   - request:    The request whose response it is.
    ///   - response:   What would be stored.
    ///   - completion: Called once with what to store (`nil`: store nothing).
    func request(_ request: any Request, willCache response: CachedResponse,
                 completion: @escaping @Sendable (CachedResponse?) -> Void)
}

/// A ``CachedResponseHandler`` that stores, refuses, or modifies the response.
public struct ResponseCacher: CachedResponseHandler {
    /// What the cacher does.
    public enum Behavior: Sendable {
        /// Store the response as it is.
        case cache
        /// Store nothing.
        case doNotCache
        /// Store what the closure returns (`nil`: nothing).
        case modify(@Sendable (any Request, CachedResponse) -> CachedResponse?)
    }

    /// Stores every storable response as it is.
    public static let cache = ResponseCacher(behavior: .cache)
    /// Stores nothing.
    public static let doNotCache = ResponseCacher(behavior: .doNotCache)

    /// What this cacher does.
    public let behavior: Behavior

    /// Creates a cacher.
    ///
    /// - Parameter behavior: What it does with each response.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// Applies ``behavior``, calling `completion` at once.
    public func request(_ request: any Request, willCache response: CachedResponse,
                        completion: @escaping @Sendable (CachedResponse?) -> Void) {
        switch behavior {
        case .cache: completion(response)
        case .doNotCache: completion(nil)
        case let .modify(closure): completion(closure(request, response))
        }
    }
}
