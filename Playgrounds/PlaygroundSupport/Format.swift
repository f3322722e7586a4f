// Human-readable sizes, speeds and durations.
import Foundation

/// Formatting of sizes, speeds and durations for playground output.
public enum Format {
    /// `"512 B"`, `"1.5 KiB"`, `"64.0 MiB"`.
    public static func bytes<T: BinaryInteger>(_ count: T) -> String {
        let value = Double(count)
        switch value {
        case ..<1024: return "\(count) B"
        case ..<(1024 * 1024): return String(format: "%.1f KiB", value / 1024)
        case ..<(1024 * 1024 * 1024): return String(format: "%.1f MiB", value / 1_048_576)
        default: return String(format: "%.2f GiB", value / 1_073_741_824)
        }
    }

    /// `"85.3 MiB/s"`: `bytes` over `seconds`.
    public static func speed<T: BinaryInteger>(bytes: T, seconds: TimeInterval) -> String {
        guard seconds > 0 else { return "-" }
        return self.bytes(Int64(Double(bytes) / seconds)) + "/s"
    }

    /// `"12.3 ms"` or `"1.234 s"`.
    public static func duration(_ seconds: TimeInterval) -> String {
        seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.3f s", seconds)
    }
}
