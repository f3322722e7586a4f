// Test support: a network namespace of the test's own, joined to this (root) namespace by a veth
// pair, with a file server inside it — so that packet loss (iptables statistic DROP), a slow link
// (tc tbf) and a black-holed address affect only the test's own traffic. Addresses come from
// 198.18.0.0/15 (RFC 2544, reserved for benchmarking: no real host is there) and exist only on
// this veth pair. Everything is removed by `close()`; namespaces left by a test process that died
// are removed by the next one.
import CurlfireTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class ImpairedNetwork: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private static let prefix = "cfimp-"
    nonisolated(unsafe) private static var counter = 0
    private static let lock = NSLock()

    let namespace: String
    let hostDevice: String
    let serverDevice: String
    /// This namespace's end of the pair.
    let hostAddress: String
    /// The server's address inside the namespace.
    let serverAddress: String
    /// An address of the namespace whose every incoming packet is dropped (connects never answer).
    let blackHoleAddress: String
    private var serverPID: pid_t?
    private var closed = false

    /// Why this machine cannot run the tests, or nil when it can (root, `ip`, `iptables`, `tc`).
    static func unavailableReason() -> String? {
        guard getuid() == 0 else { return "network namespaces need root" }
        for tool in ["ip", "iptables", "tc"] where (try? Subprocess.run(["sh", "-c", "command -v \(tool)"]))?.status != 0 {
            return "\(tool) is not installed (make deps installs iproute2 and iptables)"
        }
        return nil
    }

    init() throws {
        let index = Self.lock.withLock { () -> Int in Self.counter += 1; return Self.counter }
        let pid = Int(getpid())
        Self.removeStaleNamespaces()
        namespace = "\(Self.prefix)\(pid)-\(index)"
        hostDevice = "cfi\(pid % 100_000)x\(index % 100)h"
        serverDevice = "cfi\(pid % 100_000)x\(index % 100)n"
        // A /29 of 198.18.0.0/15 chosen by process and index, so concurrent test processes differ.
        let block = (pid * 8 + index) % 16_384
        let offset = block * 8
        let base = "198.\(18 + offset / 65_536).\((offset / 256) % 256)."
        let last = offset % 256
        hostAddress = base + "\(last + 1)"
        serverAddress = base + "\(last + 2)"
        blackHoleAddress = base + "\(last + 3)"
        do {
            try Self.run(["ip", "netns", "add", namespace])
            try Self.run(["ip", "link", "add", hostDevice, "type", "veth", "peer", "name", serverDevice])
            try Self.run(["ip", "link", "set", serverDevice, "netns", namespace])
            try Self.run(["ip", "addr", "add", "\(hostAddress)/29", "dev", hostDevice])
            try Self.run(["ip", "link", "set", hostDevice, "up"])
            try inside(["ip", "addr", "add", "\(serverAddress)/29", "dev", serverDevice])
            try inside(["ip", "addr", "add", "\(blackHoleAddress)/29", "dev", serverDevice])
            try inside(["ip", "link", "set", serverDevice, "up"])
            try inside(["ip", "link", "set", "lo", "up"])
            try inside(["iptables", "-A", "INPUT", "-d", blackHoleAddress, "-j", "DROP"])
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Runs a command inside the namespace; throws with its output when it fails.
    func inside(_ arguments: [String]) throws {
        try Self.run(["ip", "netns", "exec", namespace] + arguments)
    }

    /// Drops each packet the namespace sends and receives with `probability`.
    func dropRandomly(probability: Double) throws {
        for chain in ["INPUT", "OUTPUT"] {
            try inside(["iptables", "-A", chain, "-m", "statistic", "--mode", "random",
                        "--probability", String(probability), "-j", "DROP"])
        }
    }

    /// Limits what the server sends to `rate` (a tc rate, for example "1mbit").
    func limitServerRate(_ rate: String) throws {
        try inside(["tc", "qdisc", "add", "dev", serverDevice, "root", "tbf", "rate", rate, "burst", "32kbit",
                    "latency", "400ms"])
    }

    /// Packets dropped so far by the namespace's DROP rules, per chain.
    func droppedPackets() throws -> [String: Int] {
        let result = try Subprocess.run(["ip", "netns", "exec", namespace, "iptables", "-L", "-v", "-n", "-x"])
        var counts: [String: Int] = [:]
        var chain = ""
        for line in result.text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first == "Chain", fields.count > 1 { chain = String(fields[1]); continue }
            if fields.count > 2, fields[2] == "DROP", let packets = Int(fields[0]) { counts[chain, default: 0] += packets }
        }
        return counts
    }

    /// Starts scripts/netns-http-server.py inside the namespace serving `directory`; returns its base URL.
    func startServer(directory: URL, script: URL) throws -> URL {
        let started = try BackgroundProcess.start(["ip", "netns", "exec", namespace, "python3", script.path,
                                                   "--bind", serverAddress, "--directory", directory.path,
                                                   "--parent-pid", String(getpid())])
        serverPID = started.pid
        guard let port = (try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int])?["http"] else {
            throw Failure(description: "netns-http-server.py printed \(started.firstLine)")
        }
        return URL(string: "http://\(serverAddress):\(port)")!
    }

    /// Stops the server and deletes the namespace (which removes the veth pair). Idempotent.
    func close() {
        let pid = Self.lock.withLock { () -> pid_t? in
            if closed { return nil }
            closed = true
            return serverPID ?? 0
        }
        guard let pid else { return }
        if pid > 0 { kill(pid, SIGKILL) }
        _ = try? Subprocess.run(["ip", "netns", "del", namespace])
        _ = try? Subprocess.run(["ip", "link", "del", hostDevice]) // only if the namespace never got its end
    }

    /// Deletes `cfimp-PID-N` namespaces whose process no longer exists.
    private static func removeStaleNamespaces() {
        guard let list = try? Subprocess.run(["ip", "netns", "list"]) else { return }
        for line in list.text.split(separator: "\n").prefix(1_000) {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count).split(separator: "-").first ?? ""),
                  pid != getpid(), kill(pid, 0) != 0 else { continue }
            _ = try? Subprocess.run(["ip", "netns", "del", name])
        }
    }

    private static func run(_ arguments: [String]) throws {
        let result = try Subprocess.run(arguments, errorOutput: .mergeWithOutput)
        guard result.status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited \(result.status): \(result.text)")
        }
    }
}
