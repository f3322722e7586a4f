import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A bounded free list of ``Lock``s, so a request's transfer reuses the lock of an ended one
/// instead of allocating its own (one allocation per request fewer, docs/Performance.md).
///
/// Only a lock that is both unshared (its one reference is the one handed back) and unlocked is
/// kept; anything else is simply released. So a lock taken from the pool is never held by anyone
/// and never reachable from another object: two transfers cannot share one, and a transfer never
/// starts with its lock held (`LockPoolTests`).
///
/// `@unchecked Sendable`: `free` is read and written only under `guardLock`.
final class LockPool: @unchecked Sendable {
    /// The pool of the transfers' locks (``Transfer``'s `lock`, handed back by its `deinit`).
    static let transfers = LockPool(capacity: 256)

    /// At most how many free locks are kept.
    let capacity: Int
    private let guardLock = Lock.make()
    @exclusivity(unchecked) private var free: [Lock] // under guardLock

    /// An empty pool that keeps at most `capacity` free locks.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
        free = []
        free.reserveCapacity(self.capacity) // a recycle never grows the array (no allocation)
    }

    /// How many free locks the pool holds now.
    var count: Int { guardLock.withLock { free.count } }

    /// An unlocked lock no one else holds: a recycled one, or a new one when the pool is empty.
    func take() -> Lock {
        guardLock.withLock { free.popLast() } ?? Lock.make()
    }

    /// Keeps `lock` for a later ``take()`` when nothing else references it, nobody holds it and
    /// the pool has room; otherwise leaves it to be released with its last reference.
    ///
    /// - Returns: Whether the lock was kept.
    @discardableResult
    func recycle(_ lock: inout Lock) -> Bool {
        guard isKnownUniquelyReferenced(&lock), lock.tryLock() else { return false }
        lock.unlock()
        return guardLock.withLock {
            guard free.count < capacity else { return false }
            free.append(lock)
            return true
        }
    }
}
