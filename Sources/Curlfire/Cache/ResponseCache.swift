import Foundation
import FoundationNetworking

/// An RFC 9111 private HTTP cache for a session's data requests: an LRU memory tier and an optional
/// disk tier that survives restarts.
///
/// Off by default; one line turns it on:
///
/// ```swift
/// var configuration = SessionConfiguration.default
/// configuration.responseCache = ResponseCache(memoryCapacity: 4 << 20, diskCapacity: 64 << 20,
///                                             directory: cachesDirectory.appendingPathComponent("http"))
/// let session = SessionManager(configuration: configuration)
/// ```
///
/// Only `GET` responses are stored (a `HEAD` may be answered from a stored `GET`); freshness comes
/// from `max-age`, `Expires` − `Date`, or the heuristic (10 % of `Date` − `Last-Modified`, at most a
/// day); `URLRequest.cachePolicy` and the request's `Cache-Control` are honoured; a stale response
/// with a validator is revalidated with `If-None-Match` / `If-Modified-Since`. Downloads and
/// streams are never cached. Every method is thread-safe.
public final class ResponseCache: Sendable {
    /// The most bytes the memory tier keeps.
    public let memoryCapacity: Int
    /// The most bytes the disk tier keeps (0 without a directory).
    public let diskCapacity: Int
    /// Where the disk tier keeps its files; `nil` for a memory-only cache.
    public let directory: URL?
    /// Whether the cache acts for many users, as a shared cache does (RFC 9111 §3.5): it then
    /// refuses `private` responses and responses to requests with `Authorization` (unless `public`,
    /// `s-maxage` or `must-revalidate` allow them), and honours `s-maxage` and `proxy-revalidate`.
    /// `false` by default: a private cache for one user.
    public let isShared: Bool

    private let memory: LockedValue<MemoryTier>
    private let disk: LockedValue<DiskTier?>
    /// Keys with a `stale-while-revalidate` refresh in flight.
    private let revalidating = LockedValue<Set<String>>([])

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - memoryCapacity: The most bytes kept in memory (0 for no memory tier).
    ///   - diskCapacity:   The most bytes kept on disk (0 for no disk tier).
    ///   - directory:      The disk tier's directory, created if needed; entries found there are
    ///                     used. `nil` for a memory-only cache.
    ///   - isShared:       Whether to behave as a shared cache (see ``isShared``). `false` by default.
    public init(memoryCapacity: Int, diskCapacity: Int, directory: URL?, isShared: Bool = false) {
        self.memoryCapacity = max(0, memoryCapacity)
        self.directory = directory
        self.isShared = isShared
        let tier = diskCapacity > 0 ? directory.flatMap { DiskTier(directory: $0, capacity: diskCapacity) } : nil
        self.diskCapacity = tier == nil ? 0 : diskCapacity
        memory = LockedValue(MemoryTier(capacity: memoryCapacity))
        disk = LockedValue(tier)
    }

    /// Bytes the memory tier holds now.
    public var currentMemoryUsage: Int { memory.withLock { $0.usage } }

    /// Bytes the disk tier holds now.
    public var currentDiskUsage: Int { disk.withLock { $0?.usage ?? 0 } }

    /// Removes every stored response, in memory and on disk.
    public func removeAll() {
        memory.withLock { $0.removeAll() }
        disk.withLock { $0?.removeAll() }
    }

    /// Removes the stored response for the request's URL.
    public func removeResponse(for request: URLRequest) {
        guard let key = CachedEntry.key(for: request.url) else { return }
        remove(key: key)
    }

    /// The stored response for the request's URL, whatever its freshness, if one is stored.
    public func cachedResponse(for request: URLRequest) -> CachedResponse? {
        guard let key = CachedEntry.key(for: request.url), let url = request.url, let entry = entry(forKey: key),
              let response = entry.lazyResponse(url: url).response else { return nil }
        return CachedResponse(response: response, data: entry.body)
    }

    // MARK: - Internal

    /// The entry for a key: memory first, then disk (a disk entry is then kept in memory too).
    func entry(forKey key: String) -> CachedEntry? {
        if let entry = memory.withLock({ $0.entry(forKey: key) }) { return entry }
        guard let entry = disk.withLock({ $0?.entry(forKey: key) }) else { return nil }
        memory.withLock { $0.store(entry) }
        return entry
    }

    /// Stores an entry in memory, and on disk unless `memoryOnly`.
    func store(_ entry: CachedEntry, memoryOnly: Bool = false) {
        memory.withLock { $0.store(entry) }
        if memoryOnly {
            disk.withLock { $0?.remove(entry.key) }
        } else {
            disk.withLock { $0?.store(entry) }
        }
    }

    /// Claims the background refresh of a key: `false` when one is already in flight.
    func beginRevalidation(_ key: String) -> Bool { revalidating.withLock { $0.insert(key).inserted } }

    /// Ends the background refresh of a key.
    func endRevalidation(_ key: String) { _ = revalidating.withLock { $0.remove(key) } }

    /// Removes a key's entry from both tiers.
    func remove(key: String) {
        memory.withLock { $0.remove(key) }
        disk.withLock { $0?.remove(key) }
    }
}
