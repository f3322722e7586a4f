/// Paces one direction of a transfer to a rate, measured from its first byte: byte `n` may move no
/// earlier than `start + n / rate`. libcurl 7.88's own limiter lets short transfers through far too
/// fast on loopback (2 MB at 400 KB/s in 0.6 s: it checks only between large reads, and the socket
/// buffers absorb the rest), so the engine holds the data callbacks itself (pausing the transfer)
/// until the bytes are due. A pure value: times are monotonic nanoseconds (`IdleClock.now()`).
struct RatePacer: Sendable, Equatable {
    /// The rate, bytes per second (positive).
    let bytesPerSecond: Int
    /// When the first byte was offered; 0 before.
    private(set) var start: UInt64 = 0
    /// Bytes let through so far.
    private(set) var bytes: Int64 = 0

    init(bytesPerSecond: Int) { self.bytesPerSecond = max(1, bytesPerSecond) }

    /// When `count` more bytes are due.
    private func due(afterAdding count: Int) -> UInt64 {
        let total = Double(bytes) + Double(count)
        return start + UInt64(total * 1e9 / Double(bytesPerSecond))
    }

    /// A received chunk as a whole (libcurl cannot take part of one): `nil` when it may pass now
    /// (it is counted), else the time it may (it is not counted; offer it again then).
    mutating func admitChunk(_ count: Int, at now: UInt64) -> UInt64? {
        if start == 0 { start = now }
        let due = due(afterAdding: count)
        guard now >= due else { return due }
        bytes += Int64(count)
        return nil
    }

    /// How many of `capacity` bytes to send now (at least a twentieth of a second's worth, so reads
    /// are not tiny), or the time to ask again when none is due. Count what is sent with ``record(_:)``.
    mutating func allowance(upTo capacity: Int, at now: UInt64) -> Result<Int, Hold> {
        if start == 0 { start = now }
        let granule = min(capacity, max(1, bytesPerSecond / 20))
        let elapsed = Double(now - start) / 1e9
        let earned = Int(min(elapsed * Double(bytesPerSecond) - Double(bytes), Double(Int.max / 2)))
        guard earned >= granule else { return .failure(Hold(until: due(afterAdding: granule))) }
        return .success(min(capacity, earned))
    }

    /// Counts `count` bytes sent.
    mutating func record(_ count: Int) { bytes += Int64(count) }

    /// No bytes are due before `until`.
    struct Hold: Error, Equatable {
        /// When to ask again (monotonic nanoseconds).
        let until: UInt64
    }
}
