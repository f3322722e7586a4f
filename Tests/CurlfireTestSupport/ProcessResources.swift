// Test support shared by the load test and the soak: what this process holds, read from /proc.
import Foundation

/// A reading of this process's resident memory, open file descriptors and threads.
public struct ResourceSample: Sendable, CustomStringConvertible {
    /// Resident set size in bytes (`VmRSS` of /proc/self/status).
    public let residentBytes: Int
    /// Open file descriptors (entries of /proc/self/fd, the directory's own descriptor excluded).
    public let openFileDescriptors: Int
    /// Threads (entries of /proc/self/task).
    public let threads: Int
    /// Threads named `curlfire-engine` (one per live session).
    public let engineThreads: Int

    /// Reads the current values.
    public static func now() -> ResourceSample {
        let threadNames = ProcessResources.threadNames()
        return ResourceSample(residentBytes: ProcessResources.residentBytes(),
                              openFileDescriptors: ProcessResources.openFileDescriptors(),
                              threads: threadNames.count,
                              engineThreads: threadNames.filter { $0 == "curlfire-engine" }.count)
    }

    /// `rss 31.2 MiB, fds 12, threads 9 (engine 1)`
    public var description: String {
        String(format: "rss %.1f MiB, fds %d, threads %d (engine %d)", Double(residentBytes) / 1_048_576,
               openFileDescriptors, threads, engineThreads)
    }
}

/// Readers of /proc/self for leak checks.
public enum ProcessResources {
    /// Resident set size in bytes, 0 when /proc is unreadable.
    public static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kB * 1024
    }

    /// Open file descriptors, not counting the one used to list them.
    public static func openFileDescriptors() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return max(entries.count - 1, 0)
    }

    /// The names (`comm`) of this process's threads.
    public static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.map { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Polls `condition` every 100 ms until it holds or `timeout` seconds pass; returns the last answer.
    public static func settle(timeout: TimeInterval, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            usleep(100_000)
        }
        return true
    }
}
