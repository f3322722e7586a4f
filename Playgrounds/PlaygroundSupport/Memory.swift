// This process's resident memory, from /proc/self/status.
import Foundation

/// Resident memory of this process (Linux `/proc`).
public enum Memory {
    /// The current resident set size (`VmRSS`) in KiB; -1 when unknown.
    public static var residentKilobytes: Int { field("VmRSS") }

    /// The peak resident set size (`VmHWM`) since the start or the last ``resetPeak()``, in KiB.
    public static var peakKilobytes: Int { field("VmHWM") }

    /// Resets the peak to the current resident size (writes 5 to `/proc/self/clear_refs`).
    public static func resetPeak() {
        _ = FileManager.default.createFile(atPath: "/proc/self/clear_refs", contents: Data("5".utf8))
    }

    private static func field(_ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}
