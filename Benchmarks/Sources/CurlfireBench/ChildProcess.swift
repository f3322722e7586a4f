import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs this executable again for one measurement, so every client is measured in a fresh process
/// (peak RSS per client, cold start, no thread or connection left over from another client).
enum ChildProcess {
    struct Outcome {
        var exitDescription: String?
        /// wait4's ru_maxrss, MiB. Not the child's own peak: after posix_spawn it starts from the
        /// parent's resident set (the child reports VmHWM itself).
        var peakRSSMiB: Double
    }

    /// This executable's path.
    static let executable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        return length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
    }()

    /// Spawns `executable arguments…`, waits at most `timeout` seconds (then kills it).
    static func run(_ arguments: [String], timeout: Double) -> Outcome {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, nil, nil, argv, environ)
        guard spawned == 0 else {
            return Outcome(exitDescription: "posix_spawn failed: \(String(cString: strerror(spawned)))", peakRSSMiB: 0)
        }
        let deadline = nowNanoseconds() + UInt64(timeout * 1e9)
        var status: Int32 = 0
        var usage = rusage()
        var killed = false
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            if waited < 0, errno != EINTR {
                return Outcome(exitDescription: "wait4 failed: \(String(cString: strerror(errno)))", peakRSSMiB: 0)
            }
            if !killed, nowNanoseconds() > deadline {
                kill(pid, SIGKILL)
                killed = true
            }
            usleep(2_000)
        }
        let peak = Double(usage.ru_maxrss) / 1024
        if killed { return Outcome(exitDescription: "timed out after \(Int(timeout)) s (killed)", peakRSSMiB: peak) }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = status & 0x7f
        if signal != 0 { return Outcome(exitDescription: "killed by signal \(signal)", peakRSSMiB: peak) }
        let code = (status >> 8) & 0xff
        return Outcome(exitDescription: code == 0 ? nil : "exited with status \(code)", peakRSSMiB: peak)
    }
}
