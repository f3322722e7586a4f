import Foundation

/// When an attempt last moved bytes, for the engine's idle timeout (`timeoutIntervalForRequest`).
///
/// libcurl's own low-speed check averages the speed over its last five seconds, so once bytes
/// have flowed it notices a stall about five seconds late, and it counts whole seconds. The engine
/// therefore times a stall itself: from the moment the attempt enters libcurl (the wait for the
/// first byte counts), then from the last header, body or upload chunk. Engine thread only.
struct IdleClock {
    /// The idle limit in nanoseconds; 0 disables the clock.
    let limit: UInt64
    /// The monotonic time of the last activity; 0 until the attempt started (or while never started).
    private var last: UInt64 = 0

    /// A clock for an idle limit in seconds (non-positive or non-finite: no limit).
    init(seconds: TimeInterval) {
        limit = seconds.isFinite && seconds > 0 && seconds < 1e9 ? UInt64(seconds * 1e9) : 0
    }

    /// Bytes moved now.
    mutating func touch() {
        if limit > 0 { last = Self.now() }
    }

    /// Restarts the count after a pause (a paused transfer is not idle; one suspended before it
    /// started begins its count here).
    mutating func restart() {
        touch()
    }

    /// Whether nothing has moved for longer than the limit since the first byte.
    func hasExpired(at now: UInt64) -> Bool {
        limit > 0 && last > 0 && now > last && now - last > limit
    }

    /// The coarse monotonic clock, in nanoseconds: a few nanoseconds to read, 4 ms resolution.
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
