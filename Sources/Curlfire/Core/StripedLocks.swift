#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A fixed set of locks shared by short-lived objects that each need one only briefly: an object
/// takes the lock its address picks, instead of allocating a ``Lock`` of its own (one allocation
/// more per request for each such object — a request's lazy response head, its async waiter).
///
/// Two objects may share a lock, so whoever holds one must never wait for another lock while
/// holding it, nor call out to user code: each user only reads or writes its own fields under it.
enum StripedLocks {
    /// `nonisolated(unsafe)`: the array is never changed after it is made, and a ``Lock`` is thread-safe.
    private nonisolated(unsafe) static let locks: [Lock] = (0..<32).map { _ in Lock.make() }

    /// The lock for `object` (the same one for the object's whole life).
    static func lock(for object: AnyObject) -> Lock {
        let address = UInt(bitPattern: ObjectIdentifier(object)) // the object's address
        // Objects are 16-byte aligned: skip the low bits, and fold in higher ones.
        return locks[Int((address >> 4 ^ address >> 9) & 31)]
    }
}
