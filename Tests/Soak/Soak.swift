import Curlfire
import CurlfireTestSupport
import Foundation

/// `CurlfireSoak`: a long mixed workload against loopback servers, checking that every outcome is
/// the expected one and that memory, descriptors, threads and temporary files come back to where
/// they were once the sessions are released. See docs/Reliability.md.
@main
struct CurlfireSoak {
    static func main() async {
        do {
            let options = try SoakOptions(Array(CommandLine.arguments.dropFirst()))
            exit(try await run(options) ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("CurlfireSoak: \(error)\n".utf8))
            exit(2)
        }
    }

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Runs the mixed lane with `concurrency` operations in flight and the timeout lane with one,
    /// until `deadline`.
    static func drive(_ workload: SoakWorkload, tally: SoakTally, concurrency: Int, until deadline: Date,
                      sample: @escaping @Sendable () -> Void) async {
        let weights = SoakWorkload.mix.flatMap { Array(repeating: $0.kind, count: $0.weight) }
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<concurrency {
                group.addTask {
                    var index = lane
                    while Date() < deadline {
                        tally.record(await workload.run(weights[index % weights.count], index: index))
                        index += concurrency * 7 + 1 // walk the weights in a different order per lane
                    }
                }
            }
            group.addTask {
                while Date() < deadline { tally.record(await workload.run("timeout", index: 0)) }
            }
            group.addTask {
                while Date() < deadline {
                    try? await Task.sleep(for: .seconds(min(30, max(1, deadline.timeIntervalSinceNow / 10))))
                    if Date() < deadline { sample() }
                }
            }
        }
    }

    static func run(_ options: SoakOptions) async throws -> Bool {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("curlfire-soak-\(getpid())")
        let temporary = root.appendingPathComponent("tmp"), files = root.appendingPathComponent("files")
        for url in [temporary, files] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: root) }
        // Curlfire's temporary files (downloads, on-disk multipart) go here, so leftovers are seen.
        setenv("TMPDIR", temporary.path, 1)

        let servers = try SoakServers.start(options: options)
        say("servers: httpbin \(servers.httpbin), nginx \(servers.nginx), fault \(servers.fault)")
        let oneK = try await SessionManager(configuration: SessionConfiguration())
            .request(servers.nginx.appendingPathComponent("1k.bin")).validate().serializingData().value
        guard oneK.count == 1024 else { throw SoakFailure("nginx /1k.bin has \(oneK.count) bytes") }

        // Warm-up with sessions that are then released: the baseline includes what stays allocated
        // process-wide (libcurl and OpenSSL globals, the cooperative pool, malloc's arenas).
        let warmTally = SoakTally()
        say(String(format: "warm-up: %.0f s", options.effectiveWarmup))
        do {
            let workload = try SoakWorkload(servers: servers, directory: files, oneK: oneK)
            await drive(workload, tally: warmTally, concurrency: options.concurrency,
                        until: Date().addingTimeInterval(options.effectiveWarmup), sample: {})
        }
        _ = ProcessResources.settle(timeout: 15) { ResourceSample.now().engineThreads == 0 }
        try? await Task.sleep(for: .seconds(2))
        let baseline = ResourceSample.now()
        say("baseline after warm-up (\(warmTally.total) operations, \(warmTally.unexpectedCount) unexpected): \(baseline)")

        let tally = SoakTally()
        let started = Date()
        let peak = PeakSample()
        let halfway = Locked<ResourceSample?>(nil) // the first sample in the second half of the run
        do {
            let workload = try SoakWorkload(servers: servers, directory: files, oneK: oneK)
            await drive(workload, tally: tally, concurrency: options.concurrency,
                        until: started.addingTimeInterval(options.duration)) {
                let sample = ResourceSample.now()
                peak.note(sample)
                if Date().timeIntervalSince(started) >= options.duration / 2 {
                    halfway.withLock { if $0 == nil { $0 = sample } }
                }
                say(String(format: "  t=%4.0f s  %7d operations  %@", Date().timeIntervalSince(started), tally.total,
                           sample.description))
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        let whileRunning = ResourceSample.now()
        peak.note(whileRunning)

        // Sessions released: engine threads end, connections close, dispatch's idle workers retire.
        let engineGone = ProcessResources.settle(timeout: 15) { ResourceSample.now().engineThreads == 0 }
        let fdsBack = ProcessResources.settle(timeout: 15) { ResourceSample.now().openFileDescriptors <= baseline.openFileDescriptors }
        let threadsBack = ProcessResources.settle(timeout: 30) { ResourceSample.now().threads <= baseline.threads }
        try? await Task.sleep(for: .seconds(2))
        let end = ResourceSample.now()
        let leftovers = regularFiles(under: temporary) + regularFiles(under: files).filter { $0 != "upload.txt" }

        let growthMiB = Double(end.residentBytes - baseline.residentBytes) / 1_048_576
        var failures: [String] = []
        if tally.unexpectedCount > 0 { failures.append("\(tally.unexpectedCount) unexpected outcomes") }
        if !engineGone { failures.append("an engine thread was left behind") }
        if !fdsBack { failures.append("open descriptors \(end.openFileDescriptors) > baseline \(baseline.openFileDescriptors)") }
        if !threadsBack { failures.append("threads \(end.threads) > baseline \(baseline.threads)") }
        if growthMiB > options.rssMarginMiB {
            failures.append(String(format: "RSS grew %.1f MiB (margin %.0f MiB)", growthMiB, options.rssMarginMiB))
        }
        let lateGrowthMiB = halfway.withLock { $0 }.map { Double(whileRunning.residentBytes - $0.residentBytes) / 1_048_576 }
        if options.duration >= 300, let lateGrowthMiB, lateGrowthMiB > options.lateMarginMiB {
            failures.append(String(format: "RSS grew %.1f MiB over the second half (margin %.0f MiB)", lateGrowthMiB,
                                   options.lateMarginMiB))
        }
        if !leftovers.isEmpty { failures.append("files left behind: \(leftovers.prefix(5))") }

        say("""
            ---- CurlfireSoak summary ----
            duration        \(String(format: "%.1f s", elapsed)) (warm-up \(String(format: "%.0f s", options.effectiveWarmup)) before)
            operations      \(tally.total) (\(String(format: "%.0f/s", Double(tally.total) / elapsed))), \
            \(tally.unexpectedCount) unexpected, concurrency \(options.concurrency) + 1 timeout lane
            \(tally.table)
            baseline        \(baseline)
            peak            \(peak.description)
            end of run      \(whileRunning)
            after release   \(end)
            RSS growth      \(String(format: "%+.1f MiB", growthMiB)) (margin \(String(format: "%.0f", options.rssMarginMiB)) MiB)
            second half     \(lateGrowthMiB.map { String(format: "%+.1f MiB", $0) } ?? "n/a") \
            (margin \(String(format: "%.0f", options.lateMarginMiB)) MiB, checked from 300 s on)
            """)
        for example in tally.examples { say("unexpected: \(example)") }
        say(failures.isEmpty ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        return failures.isEmpty
    }
}

/// Paths (relative to `directory`) of the regular files below it; empty directories do not count.
func regularFiles(under directory: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
    var files: [String] = []
    while let path = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path, isDirectory: &isDirectory),
           !isDirectory.boolValue { files.append(path) }
    }
    return files
}

/// The highest values seen by the periodic samples.
final class PeakSample: Sendable {
    private let state = Locked<(rss: Int, fds: Int, threads: Int)>((0, 0, 0))
    func note(_ sample: ResourceSample) {
        state.withLock {
            $0 = (max($0.rss, sample.residentBytes), max($0.fds, sample.openFileDescriptors), max($0.threads, sample.threads))
        }
    }
    var description: String {
        let peak = state.withLock { $0 }
        return String(format: "rss %.1f MiB, fds %d, threads %d", Double(peak.rss) / 1_048_576, peak.fds, peak.threads)
    }
}
