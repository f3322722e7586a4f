import Foundation
internal import CCurl

/// How the engine sleeps while it has no transfer, so that another thread may send a request itself
/// (docs/Architecture.md, "Inline driving").
///
/// A thread blocked in `curl_multi_poll` owns the multi handle, so nobody else may touch it. With no
/// transfer there is nothing for libcurl to wait on, so the engine sleeps here instead, outside
/// libcurl and without the driver lock: in `poll(2)` on an eventfd (its wake-up) and on the sockets of
/// the keep-alive connections its last attempts left idle. A thread that starts a request meanwhile
/// sends it on such a connection itself; the response then wakes the engine through that socket, with
/// no hand-off in between. Everything here but ``signal()`` (any thread) and ``sleep(milliseconds:)``
/// (the engine thread, which only reads) is touched only by the holder of the engine's driver lock.
final class IdleSleep {
    /// At most this many idle connections are watched (the most recently used ones).
    static let capacity = 16
    /// The eventfd that ends a sleep early (``signal()``); -1 if none could be made.
    let wakeDescriptor: Int32
    /// The idle connections' sockets, oldest first.
    private let known = UnsafeMutablePointer<Int32>.allocate(capacity: IdleSleep.capacity)
    private var knownCount = 0
    /// The sockets of the sleep under way (a copy of `known` made before it started).
    private let watched = UnsafeMutablePointer<Int32>.allocate(capacity: IdleSleep.capacity)
    private var watchedCount = 0
    /// When the sleep under way ends at the latest (``IdleClock/now()`` nanoseconds).
    private(set) var wakeAt: UInt64 = 0

    init() {
        wakeDescriptor = cfcurl_wake_fd_make()
    }

    deinit {
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
        known.deallocate()
        watched.deallocate()
    }

    /// Whether the engine can sleep here at all (the eventfd exists).
    var isAvailable: Bool { wakeDescriptor >= 0 }

    /// Remembers the socket of a connection a completed attempt left in libcurl's cache.
    func remember(_ socket: Int32) {
        guard socket >= 0 else { return }
        // Already known: moved to the end (the most recently used). Full: the oldest goes.
        if let index = (0..<knownCount).first(where: { known[$0] == socket }) {
            removeKnown(at: index)
        } else if knownCount == Self.capacity {
            removeKnown(at: 0)
        }
        known[knownCount] = socket
        knownCount += 1
    }

    /// Fixes what the next sleep watches and how long it lasts. Called before the driver lock is let go.
    func prepare(milliseconds: Int32) {
        watched.update(from: known, count: knownCount)
        watchedCount = knownCount
        wakeAt = IdleClock.now() + UInt64(milliseconds) * 1_000_000
    }

    /// Sleeps until ``signal()``, a watched socket reports anything, or `milliseconds` pass. Called
    /// without the driver lock: it only reads what ``prepare(milliseconds:)`` fixed, which nobody
    /// changes before the sleeper takes the lock again.
    ///
    /// - Returns: Which watched sockets reported anything, for ``forget(reported:)``.
    func sleep(milliseconds: Int32) -> UInt32 {
        cfcurl_idle_poll(wakeDescriptor, watched, Int32(watchedCount), milliseconds)
    }

    /// Forgets the sockets a sleep reported (its driver lock taken again): a response has come on
    /// each (its attempt's end remembers the socket again), or its server closed it, and a closed
    /// socket would end every later sleep at once.
    func forget(reported mask: UInt32) {
        guard mask != 0 else { return }
        for index in 0..<watchedCount where mask & (1 << UInt32(index)) != 0 { forget(watched[index]) }
    }

    /// Ends the sleep under way, or the next one. Any thread.
    func signal() {
        if wakeDescriptor >= 0 { cfcurl_wake_fd_signal(wakeDescriptor) }
    }

    /// Whether every socket `multi` now waits on is watched by the sleep under way, for reading
    /// only: then that sleep ends when libcurl has work, and nobody needs to wake it.
    func coversWaits(of multi: UnsafeMutableRawPointer) -> Bool {
        watchedCount > 0 && cfcurl_multi_waits_to_read_only(multi, watched, Int32(watchedCount)) != 0
    }

    private func forget(_ socket: Int32) {
        if let index = (0..<knownCount).first(where: { known[$0] == socket }) { removeKnown(at: index) }
    }

    /// Removes the known socket at `index`, keeping the others in order.
    private func removeKnown(at index: Int) {
        for later in index..<(knownCount - 1) { known[later] = known[later + 1] }
        knownCount -= 1
    }
}
