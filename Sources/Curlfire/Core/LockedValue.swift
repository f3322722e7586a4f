import Foundation

/// A value guarded by an `NSLock`: `withLock` gives the body exclusive, `inout` access.
///
/// Used instead of `Synchronization.Mutex`, whose futex ThreadSanitizer on this toolchain does not
/// see: it reports races on state that a `Mutex` does guard (found in LoadTests and in the response
/// cache), and CI runs the whole suite under ThreadSanitizer.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = Lock.make()
    /// Only reached by `withLock`, whose `inout` access is the one access at a time: the runtime's
    /// dynamic exclusivity check is left out (`@exclusivity(unchecked)`; the same for `Transfer`'s
    /// guarded state).
    @exclusivity(unchecked) private var value: Value

    /// Guards `value`.
    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
