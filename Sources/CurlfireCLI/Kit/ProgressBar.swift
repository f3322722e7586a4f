import Foundation

/// Formats download progress: a one-line bar for a terminal and a summary for logs.
public struct ProgressBar: Sendable {
    /// The terminal width the line must fit in. 80 by default.
    public var width: Int

    /// Creates a formatter for a terminal `width` columns wide.
    public init(width: Int = 80) {
        self.width = max(width, 40)
    }

    /// One status line, without `\r` or newline:
    /// ` 42% [=========>            ] 43.0 kB / 102.4 kB  1.2 MB/s  ETA 0:02` with a known total,
    /// `43.0 kB  1.2 MB/s  0:03` without.
    ///
    /// - Parameters:
    ///   - received: bytes on disk so far (a resumed download counts its earlier bytes).
    ///   - total:    the full size, when known.
    ///   - speed:    bytes per second over this transfer.
    ///   - elapsed:  seconds since the transfer started.
    public func line(received: Int64, total: Int64?, speed: Double, elapsed: TimeInterval) -> String {
        let rate = ByteCount.format(Int64(speed.isFinite ? max(speed, 0) : 0)) + "/s"
        guard let total, total > 0 else {
            return "\(ByteCount.format(received))  \(rate)  \(Self.clock(elapsed))"
        }
        let fraction = min(max(Double(received) / Double(total), 0), 1)
        let percent = String(repeating: " ", count: 3 - String(Int(fraction * 100)).count) + "\(Int(fraction * 100))%"
        let remaining = speed > 0 ? Double(total - received) / speed : .nan
        let eta = fraction >= 1 ? "done    " : "ETA " + (remaining.isFinite ? Self.clock(remaining) : "-:--")
        let tail = " \(ByteCount.format(received)) / \(ByteCount.format(total))  \(rate)  \(eta)"
        let barWidth = max(width - percent.count - tail.count - 3, 10)
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "=", count: filled)
            + (filled < barWidth ? ">" + String(repeating: " ", count: barWidth - filled - 1) : "")
        return "\(percent) [\(bar)]\(tail)"
    }

    /// The closing line: `Done. 102.4 kB in 0.35s, 292.6 kB/s.` (`resumed from` when it continued).
    public static func summary(received: Int64, resumedFrom: Int64, elapsed: TimeInterval, destination: String) -> String {
        let transferred = received - resumedFrom
        let rate = elapsed > 0 ? ByteCount.format(Int64(Double(transferred) / elapsed)) + "/s" : "-"
        let resumed = resumedFrom > 0 ? " (resumed from byte \(resumedFrom))" : ""
        return "Done. \(ByteCount.format(received)) in \(String(format: "%.2f", elapsed))s, \(rate)\(resumed): \(destination)"
    }

    /// `m:ss`, or `h:mm:ss` from an hour on.
    static func clock(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, (total / 60) % 60, total % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}

/// Byte counts in decimal units, as httpie and curl print them.
public enum ByteCount {
    /// `512 B`, `43.0 kB`, `1.2 MB`, `3.4 GB`.
    public static func format(_ bytes: Int64) -> String {
        let units = ["kB", "MB", "GB", "TB"]
        guard bytes >= 1000 else { return "\(bytes) B" }
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }
}
