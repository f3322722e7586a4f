import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutual-exclusion lock in one allocation: a `pthread_mutex_t` stored in the object itself
/// (not `Sendable`, as `ManagedBuffer` is not: it is held by the `@unchecked Sendable` types it guards)
/// (`ManagedBuffer`'s tail), where `NSLock` on Linux allocates its object and, separately, its mutex.
///
/// Every request creates a few locks (its transfer, its response waiter, its lazy response head), so
/// the second allocation was paid several times per request (docs/Performance.md). A pthread mutex,
/// not `Synchronization.Mutex`: ThreadSanitizer, which CI runs the suite under, sees pthread locks but
/// not the futex of `Mutex` on this toolchain.
final class Lock: ManagedBuffer<Void, pthread_mutex_t> {
    /// A new, unlocked lock.
    static func make() -> Lock {
        let buffer = Lock.create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { mutex in _ = pthread_mutex_init(mutex, nil) }
        }
        return unsafeDowncast(buffer, to: Lock.self)
    }

    deinit {
        _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }

    /// The mutex by its address, stable for the lock's whole life (it lives in the object's own
    /// allocation): for an owner that keeps the lock and takes it without retaining the object on
    /// every use (`Transfer.withLock(_:)`). Valid only while the lock object lives.
    var reference: MutexReference {
        MutexReference(mutex: withUnsafeMutablePointerToElements { $0 })
    }

    /// Takes the lock, waiting for it.
    func lock() {
        _ = withUnsafeMutablePointerToElements { pthread_mutex_lock($0) }
    }

    /// Takes the lock if nobody holds it, without waiting.
    ///
    /// - Returns: Whether the lock was taken (then the caller must ``unlock()`` it).
    func tryLock() -> Bool {
        withUnsafeMutablePointerToElements { pthread_mutex_trylock($0) } == 0
    }

    /// Releases the lock.
    func unlock() {
        _ = withUnsafeMutablePointerToElements { pthread_mutex_unlock($0) }
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A mutex that lives elsewhere (one of the ``StripedLocks``, or a ``Lock`` its owner keeps), reached by
/// its address: copied freely, with no reference count to write on each use.
struct MutexReference {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Takes the lock, waiting for it.
    @inline(__always)
    func lock() { _ = pthread_mutex_lock(mutex) }

    /// Releases the lock.
    @inline(__always)
    func unlock() { _ = pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
