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
///
/// The locks are bare `pthread_mutex_t`s in one allocation made once and never freed, each on a cache
/// line of its own: handing one out is pointer arithmetic (a ``MutexReference``). (They were ``Lock`` objects in an array,
/// and every use retained and released the lock object, a reference count shared by every request
/// and written by the engine thread and the executor's threads alike: 7–8 atomic operations per
/// awaited request, counted; docs/Performance.md, "twenty-third session".)
enum StripedLocks {
    /// How many locks there are (a power of two).
    private static let count = 32
    /// Bytes per lock: a cache line, so two locks taken on two CPUs never share one.
    private static let stride = 64

    /// The mutexes, initialised once. `nonisolated(unsafe)`: the pointer is never changed after it is
    /// made, and each mutex is only ever used through the pthread calls, which are thread-safe.
    private nonisolated(unsafe) static let mutexes: UnsafeMutableRawPointer = {
        precondition(MemoryLayout<pthread_mutex_t>.size <= stride, "pthread_mutex_t outgrew a cache line")
        let base = UnsafeMutableRawPointer.allocate(byteCount: count * stride, alignment: stride)
        for index in 0..<count {
            let mutex = (base + index * stride).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            _ = pthread_mutex_init(mutex, nil)
        }
        return base
    }()

    /// The lock for `object` (the same one for the object's whole life).
    static func lock(for object: AnyObject) -> MutexReference {
        let address = UInt(bitPattern: ObjectIdentifier(object)) // the object's address
        // Objects are 16-byte aligned: skip the low bits, and fold in higher ones.
        let index = Int((address >> 4 ^ address >> 9) & UInt(count - 1))
        return MutexReference(mutex: (mutexes + index * stride).assumingMemoryBound(to: pthread_mutex_t.self))
    }
}
