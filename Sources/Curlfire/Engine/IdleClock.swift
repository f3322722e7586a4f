import Foundation

/// When an attempt last moved bytes, for the engine's idle timeout (`timeoutIntervalForRequest`).
///
/// The only idle timer of an attempt: libcurl's low-speed check (`CURLOPT_LOW_SPEED_*`) averages
/// the speed over its last five seconds, so once bytes have flowed it notices a stall about five
/// seconds late, and it counts whole seconds; and it re-armed a libcurl timer on every pass of the
/// transfer, which cost every request about 0.5 µs. The engine times a stall itself: from the moment
/// the attempt enters libcurl (the connection, the TLS handshake and the wait for the first byte
/// count), then from the last header, body or upload chunk. Engine thread only.
struct IdleClock {
    /// The idle limit in nanoseconds; 0 disables the clock.
    let limit: UInt64
    /// The monotonic time of the last activity; 0 until the attempt started (or while never started).
    private var last: UInt64 = 0

    /// A clock for an idle limit in seconds (non-positive or non-finite: no limit; more than
    /// ``RequestTimeLimits/clamped(_:)``'s maximum, about 23 days: that maximum).
    init(seconds: TimeInterval) {
        limit = seconds.isFinite && seconds > 0 ? UInt64(RequestTimeLimits.clamped(seconds) * 1e9) : 0
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
