import CRawCurl
import Foundation

/// Medians, ratios against raw libcurl, the issue's targets, as Markdown and JSON.
struct Report {
    let settings: Driver.Settings
    let environment: BenchEnvironment
    let samples: [Scenario: [ClientKind: [Measurement]]]
    let elapsed: TimeInterval

    /// The summary of one cell.
    struct Cell: Codable {
        var median: Double?
        var unit: String
        /// Speed relative to raw libcurl: 1.0 = the same, higher is better (for the cold start,
        /// raw time / client time).
        var ratioToRawLibcurl: Double?
        var okSamples: Int
        var failedSamples: Int
        var skipped: Bool
        var note: String?
        var medianPeakRSSMiB: Double?
        /// Peak minus the resident set when the measurement began (what the transfer added).
        var medianPeakGrowthMiB: Double?
        var medianNewConnections: Double?
        /// Process CPU time (user + system, getrusage over the timed window) per counted request, µs.
        var medianCPUMicrosecondsPerRequest: Double?
        /// CPU per request relative to raw libcurl's: 1.0 = the same, lower is better.
        var cpuRatioToRawLibcurl: Double?
        /// Context switches of the process per counted request over the window.
        var medianContextSwitchesPerRequest: Double?
        /// Heap allocations of the process per counted request over the window (AllocCounter preloaded).
        var medianAllocationsPerRequest: Double?
        /// Sweep: (peak RSS − RSS at the start) ÷ requests in flight, KiB.
        var medianResidentKiBPerInFlight: Double?
        var samples: [Measurement]
    }

    func cell(_ scenario: Scenario, _ client: ClientKind) -> Cell {
        let all = samples[scenario]?[client] ?? []
        let ok = all.filter { $0.status == .ok }
        let median = Self.median(ok.compactMap(\.value))
        var ratio: Double?
        if let median, client != .rawCurl,
           let raw = Self.median((samples[scenario]?[.rawCurl] ?? []).filter { $0.status == .ok }.compactMap(\.value)),
           raw > 0, median > 0 {
            ratio = scenario.higherIsBetter ? median / raw : raw / median
        } else if median != nil, client == .rawCurl {
            ratio = 1
        }
        let failed = all.filter { $0.status == .failed }
        let skipped = all.first { $0.status == .skipped }
        let cpu = Self.median(ok.compactMap(\.cpuMicrosecondsPerRequest))
        var cpuRatio: Double?
        if let cpu, let raw = Self.median((samples[scenario]?[.rawCurl] ?? []).filter { $0.status == .ok }
            .compactMap(\.cpuMicrosecondsPerRequest)), raw > 0 {
            cpuRatio = cpu / raw
        }
        let perInFlight: Double? = scenario.isSweep ? Self.median(ok.compactMap { sample in
            sample.peakRSSMiB.flatMap { peak in
                sample.startRSSMiB.map { (peak - $0) * 1024 / Double(scenario.concurrency) }
            }
        }) : nil
        return Cell(median: median, unit: scenario.unit, ratioToRawLibcurl: ratio, okSamples: ok.count,
                    failedSamples: failed.count, skipped: skipped != nil && ok.isEmpty,
                    note: skipped?.note ?? failed.first?.note,
                    medianPeakRSSMiB: Self.median(ok.compactMap(\.peakRSSMiB)),
                    medianPeakGrowthMiB: Self.median(ok.compactMap { sample in
                        sample.peakRSSMiB.flatMap { peak in sample.startRSSMiB.map { peak - $0 } }
                    }),
                    medianNewConnections: Self.median(ok.compactMap { $0.connects.map(Double.init) }),
                    medianCPUMicrosecondsPerRequest: cpu, cpuRatioToRawLibcurl: cpuRatio,
                    medianContextSwitchesPerRequest: Self.median(ok.compactMap(\.contextSwitchesPerRequest)),
                    medianAllocationsPerRequest: Self.median(ok.compactMap(\.allocationsPerRequest)),
                    medianResidentKiBPerInFlight: perInFlight, samples: all)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    // MARK: - Markdown

    func markdown() -> String {
        let clients = settings.clients
        var lines: [String] = []
        lines.append("| scenario | unit | " + clients.map(\.title).joined(separator: " | ") + " |")
        lines.append("|---|---|" + String(repeating: "---:|", count: clients.count))
        var notes: [String] = []
        for scenario in settings.scenarios where !scenario.isSweep {
            var row = "| \(scenario.title) | \(scenario.unit) |"
            for client in clients {
                let cell = cell(scenario, client)
                row += " " + format(cell, notes: &notes) + " |"
            }
            lines.append(row)
            if scenario == .download {
                var rss = "| 1 GiB download: peak RSS of the process (growth during the download) | MiB |"
                for client in clients {
                    let cell = cell(scenario, client)
                    if let peak = cell.medianPeakRSSMiB, let growth = cell.medianPeakGrowthMiB {
                        rss += String(format: " %.0f (+%.0f) |", peak, growth)
                    } else {
                        rss += " — |"
                    }
                }
                lines.append(rss)
            }
        }
        var text = lines.count > 2 ? lines.joined(separator: "\n") + "\n\n" : ""
        text += sweepMarkdown(notes: &notes)
        text += countsMarkdown()
        text += "Median of \(settings.repetitions) interleaved repetitions; (×) = speed relative to raw libcurl "
            + "(higher is better; for the cold start raw time ÷ client time); µs = process CPU time "
            + "(getrusage, user + system, every thread) per request over the timed window. "
            + "Closed-loop windows \(settings.seconds) s after \(settings.warmupSeconds) s warm-up "
            + "(at least 2 s with 1,024 or more in flight). "
            + (settings.scenarios.contains(.download) ? "Downloads written to \(environment.downloadDirectory). " : "")
            + String(format: "Run took %.0f s.", elapsed) + "\n"
        if !notes.isEmpty {
            text += "\n" + notes.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n") + "\n"
        }
        let targets = targetLines()
        if !targets.isEmpty { text += "\nTargets (issue 18):\n\n" + targets.joined(separator: "\n") + "\n" }
        let core = coreTargetLines()
        if !core.isEmpty { text += "\nTargets (issue 24, the request core):\n\n" + core.joined(separator: "\n") + "\n" }
        let floor = floorLines()
        if !floor.isEmpty {
            text += "\nAbove the hand-off floor (libcurl on an engine thread with the same hand-off and headers, "
                + "no Curlfire code; Clients/HandoffClient.swift):\n\n" + floor.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// The hot-path counts (ARCHITECTURE.md rule 14): per request, heap allocations of the whole
    /// process (Curlfire's own = its count − raw libcurl's) and context switches, for the small-request
    /// scenarios and the sweep levels measured.
    private func countsMarkdown() -> String {
        let scenarios = ([Scenario.sequential, .concurrent8, .concurrent64, .multiplexed64] + Scenario.sweep)
            .filter(settings.scenarios.contains)
        guard !scenarios.isEmpty else { return "" }
        let clients = settings.clients.filter { client in scenarios.contains { cell($0, client).median != nil } }
        var lines = ["Hot-path counts per request over the timed window: allocations (malloc, calloc, realloc and "
            + "the aligned forms, whole process, with Benchmarks/AllocCounter preloaded; — without it) · context "
            + "switches (getrusage, whole process).", ""]
        lines.append("| scenario | " + clients.map(\.title).joined(separator: " | ") + " |")
        lines.append("|---|" + String(repeating: "---:|", count: clients.count))
        for scenario in scenarios {
            var row = "| \(scenario.isSweep ? "sweep, \(scenario.concurrency) in flight" : scenario.rawValue) |"
            for client in clients {
                let cell = cell(scenario, client)
                guard cell.median != nil else { row += " — |"; continue }
                let allocations = cell.medianAllocationsPerRequest.map { String(format: "%.1f", $0) } ?? "—"
                let switches = cell.medianContextSwitchesPerRequest.map { String(format: "%.2f", $0) } ?? "—"
                row += " \(allocations) allocs · \(switches) cs |"
            }
            lines.append(row)
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// The concurrency sweep: one row per level, for each client in the sweep its rate (ratio), CPU
    /// per request (ratio to raw libcurl's) and resident memory per in-flight request.
    private func sweepMarkdown(notes: inout [String]) -> String {
        let levels = Scenario.sweep.filter(settings.scenarios.contains)
        guard !levels.isEmpty else { return "" }
        let clients = settings.clients.filter(\.inSweep)
        var lines = ["Concurrency sweep: small GETs, HTTP/1.1 keep-alive, connections per host = requests in flight. "
            + "Each cell: req/s (× raw libcurl) · µs CPU per request (× raw libcurl's) · KiB of resident memory "
            + "per in-flight request ((peak RSS − RSS at the start) ÷ in flight).", ""]
        lines.append("| in flight | " + clients.map(\.title).joined(separator: " | ") + " |")
        lines.append("|---:|" + String(repeating: "---:|", count: clients.count))
        for scenario in levels {
            var row = "| \(scenario.concurrency) |"
            for client in clients {
                let cell = cell(scenario, client)
                var text = format(cell, notes: &notes)
                if cell.median != nil, let kib = cell.medianResidentKiBPerInFlight {
                    text += String(format: " · %.1f KiB", kib)
                }
                row += " " + text + " |"
            }
            lines.append(row)
        }
        let others = settings.clients.filter { !$0.inSweep }
        if !others.isEmpty {
            lines.append("")
            lines.append(others.map(\.title).joined(separator: " and ") + ": not measured in the sweep (skipped).")
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    private func format(_ cell: Cell, notes: inout [String]) -> String {
        func noteMark(_ note: String?) -> String {
            guard let note else { return "" }
            if let index = notes.firstIndex(of: note) { return " [\(index + 1)]" }
            notes.append(note)
            return " [\(notes.count)]"
        }
        guard let median = cell.median else {
            return (cell.skipped ? "skipped" : "failed") + noteMark(cell.note)
        }
        var text = median >= 100 ? String(format: "%.0f", median) : String(format: "%.1f", median)
        if let ratio = cell.ratioToRawLibcurl, cell.unit != "" { text += String(format: " (%.2f×)", ratio) }
        if let cpu = cell.medianCPUMicrosecondsPerRequest {
            text += cpu >= 100 ? String(format: " · %.0f µs", cpu) : String(format: " · %.1f µs", cpu)
            if let ratio = cell.cpuRatioToRawLibcurl, ratio != 1 || cell.ratioToRawLibcurl != 1 {
                text += String(format: " (%.1f×)", ratio)
            }
        }
        if cell.failedSamples > 0 { text += " (\(cell.failedSamples) failed)" + noteMark(cell.note) }
        return text
    }

    // MARK: - Targets

    /// Issue 18's targets (and the no-regression checks it keeps from issue 7), each for both
    /// Curlfire APIs. A target whose figures were not measured in this run says so.
    func targetLines() -> [String] {
        var lines: [String] = []
        func ratio(_ scenario: Scenario, _ client: ClientKind, to other: ClientKind) -> Double? {
            guard let mine = cell(scenario, client).median, let theirs = cell(scenario, other).median, theirs > 0 else {
                return nil
            }
            return scenario.higherIsBetter ? mine / theirs : theirs / mine
        }
        func check(_ label: String, _ value: Double?, atLeast threshold: Double) {
            guard let value else { return lines.append("- \(label): not measured") }
            lines.append(String(format: "- %@: %.2f× (target ≥ %.2f×) — %@", label, value, threshold,
                                value >= threshold ? "met" : "NOT met"))
        }
        func cpu(_ scenario: Scenario, _ client: ClientKind) -> Double? { cell(scenario, client).medianCPUMicrosecondsPerRequest }
        func checkCPU(_ label: String, _ scenario: Scenario, _ client: ClientKind) {
            guard let mine = cpu(scenario, client), let raw = cpu(scenario, .rawCurl), raw > 0 else {
                return lines.append("- \(label): not measured")
            }
            lines.append(String(format: "- %@: %.1f µs vs %.1f µs = %.2f× (target ≤ 2×) — %@", label, mine, raw,
                                mine / raw, mine / raw <= 2 ? "met" : "NOT met"))
        }
        let measured = Set(settings.scenarios)
        for client in [ClientKind.curlfireCallback, .curlfireAsync] where settings.clients.contains(client) {
            let name = client.title
            // 1. Request rates.
            for scenario in [Scenario.sequential, .concurrent8, .concurrent64, .multiplexed64] where measured.contains(scenario) {
                check("\(name) \(scenario.rawValue) vs raw libcurl", ratio(scenario, client, to: .rawCurl), atLeast: 0.6)
                if settings.clients.contains(.asyncHTTPClient) {
                    check("\(name) \(scenario.rawValue) vs AsyncHTTPClient", ratio(scenario, client, to: .asyncHTTPClient),
                          atLeast: 1.3)
                }
            }
            // 2. CPU per request.
            for scenario in [Scenario.sequential, .concurrent64] where measured.contains(scenario) {
                checkCPU("\(name) \(scenario.rawValue) CPU per request vs raw libcurl", scenario, client)
            }
            // 3. The sweep.
            let levels = Scenario.sweep.filter(measured.contains)
            for scenario in levels {
                checkCPU("\(name) sweep \(scenario.concurrency) in flight: CPU per request vs raw libcurl", scenario, client)
            }
            if measured.contains(.inFlight64), measured.contains(.inFlight4096) {
                if let mine64 = cpu(.inFlight64, client), let mine4096 = cpu(.inFlight4096, client),
                   let raw64 = cpu(.inFlight64, .rawCurl), let raw4096 = cpu(.inFlight4096, .rawCurl),
                   mine64 > 0, raw64 > 0 {
                    let growth = mine4096 / mine64, rawGrowth = raw4096 / raw64
                    lines.append(String(format: "- %@ CPU per request growth from 64 to 4,096 in flight: %.2f× "
                                        + "(raw libcurl %.2f×; target no worse) — %@", name, growth, rawGrowth,
                                        growth <= rawGrowth ? "met" : "NOT met"))
                } else {
                    lines.append("- \(name) CPU per request growth from 64 to 4,096 in flight: not measured")
                }
            }
            // At 1 and 64 in flight the client's fixed set-up (libcurl and OpenSSL initialisation,
            // threads) outweighs what each request holds: the target is read where it does not.
            for scenario in levels where scenario.concurrency >= 1024 {
                if let kib = cell(scenario, client).medianResidentKiBPerInFlight {
                    lines.append(String(format: "- %@ sweep %d in flight: %.1f KiB resident per in-flight request "
                                        + "(target ≤ 64 KiB) — %@", name, scenario.concurrency, kib,
                                        kib <= 64 ? "met" : "NOT met"))
                } else {
                    lines.append("- \(name) sweep \(scenario.concurrency) in flight: memory per request not measured")
                }
            }
            // 5. No regressions (issue 7's bars).
            if measured.contains(.download) {
                check("\(name) 1 GiB download vs raw libcurl", ratio(.download, client, to: .rawCurl), atLeast: 0.9)
                if let peak = cell(.download, client).medianPeakRSSMiB, let growth = cell(.download, client).medianPeakGrowthMiB {
                    lines.append(String(format: "- %@ 1 GiB download peak memory: +%.0f MiB during the download, "
                                        + "%.0f MiB process peak (target < 64 MiB) — %@", name, growth, peak,
                                        growth < 64 ? "met" : "NOT met"))
                } else {
                    lines.append("- \(name) 1 GiB download peak RSS: not measured")
                }
            }
            if measured.contains(.handshakes) {
                check("\(name) new HTTPS connections vs raw libcurl", ratio(.handshakes, client, to: .rawCurl), atLeast: 0.8)
            }
            if measured.contains(.cacheHit), let hit = cell(.cacheHit, client).median,
               let network = cell(.sequential, client).median, network > 0 {
                lines.append(String(format: "- %@ fresh cache hit vs its own loopback GET: %.1f× (issue 15: ≥ 10×) — %@",
                                    name, hit / network, hit / network >= 10 ? "met" : "NOT met"))
            }
            if settings.clients.contains(.asyncHTTPClient) {
                let compared = settings.scenarios.filter { !$0.isSweep }
                let slower = compared.filter { scenario in
                    (ratio(scenario, client, to: .asyncHTTPClient) ?? 1) < 1
                }
                let unmeasured = compared.filter { ratio($0, client, to: .asyncHTTPClient) == nil }
                lines.append("- \(name) nothing slower than AsyncHTTPClient: "
                    + (slower.isEmpty ? "met" : "NOT met (slower in " + slower.map(\.rawValue).joined(separator: ", ") + ")")
                    + (unmeasured.isEmpty ? "" : "; not compared: " + unmeasured.map(\.rawValue).joined(separator: ", ")))
            }
        }
        return lines
    }

    /// Issue 24's targets, for both Curlfire APIs: Curlfire's own allocations per request (its count minus
    /// raw libcurl's) ≤ 20 sequential and at 64 in flight; ≤ 3 context switches per sequential request;
    /// CPU per request ≤ 2.5× raw libcurl's sequential and ≤ 2× at 64 in flight; every small-request row
    /// ≥ 1.2× AsyncHTTPClient; the 4,096-in-flight CPU ratio no worse than 1.45× raw libcurl's.
    func coreTargetLines() -> [String] {
        var lines: [String] = []
        let measured = Set(settings.scenarios)
        func verdict(_ met: Bool) -> String { met ? "met" : "NOT met" }
        for client in [ClientKind.curlfireCallback, .curlfireAsync] where settings.clients.contains(client) {
            let name = client.title
            for scenario in [Scenario.sequential, .concurrent64] where measured.contains(scenario) {
                if let mine = cell(scenario, client).medianAllocationsPerRequest,
                   let raw = cell(scenario, .rawCurl).medianAllocationsPerRequest {
                    lines.append(String(format: "- %@ %@: %.1f allocations of its own per request (%.1f − raw libcurl's "
                                        + "%.1f; target ≤ 20) — %@", name, scenario.rawValue, mine - raw, mine, raw,
                                        verdict(mine - raw <= 20)))
                } else {
                    lines.append("- \(name) \(scenario.rawValue): allocations not counted (AllocCounter not preloaded)")
                }
            }
            if measured.contains(.sequential), let switches = cell(.sequential, client).medianContextSwitchesPerRequest {
                lines.append(String(format: "- %@ sequential: %.2f context switches per request (target ≤ 3.0) — %@",
                                    name, switches, verdict(switches <= 3)))
            }
            for (scenario, bound) in [(Scenario.sequential, 2.5), (.concurrent64, 2.0), (.inFlight4096, 1.45)]
            where measured.contains(scenario) {
                if let ratio = cell(scenario, client).cpuRatioToRawLibcurl {
                    lines.append(String(format: "- %@ %@: CPU per request %.2f× raw libcurl's (target ≤ %.2f×) — %@",
                                        name, scenario.rawValue, ratio, bound, verdict(ratio <= bound)))
                }
            }
            if settings.clients.contains(.asyncHTTPClient) {
                for scenario in [Scenario.sequential, .concurrent8, .concurrent64, .multiplexed64]
                where measured.contains(scenario) {
                    guard let mine = cell(scenario, client).median, let theirs = cell(scenario, .asyncHTTPClient).median,
                          theirs > 0 else { continue }
                    lines.append(String(format: "- %@ %@ vs AsyncHTTPClient: %.2f× (target ≥ 1.2×) — %@", name,
                                        scenario.rawValue, mine / theirs, verdict(mine / theirs >= 1.2)))
                }
            }
        }
        return lines
    }

    /// Per small-request scenario and API: the hand-off floor's CPU per request (× raw libcurl's) and
    /// what Curlfire spends above it, so a run tells the hand-off's cost from Curlfire's own.
    func floorLines() -> [String] {
        var lines: [String] = []
        let pairs = [(ClientKind.curlfireCallback, ClientKind.handoffCallback), (.curlfireAsync, .handoffAsync)]
        for (client, floor) in pairs where settings.clients.contains(client) && settings.clients.contains(floor) {
            for scenario in [Scenario.sequential, .concurrent8, .concurrent64, .multiplexed64]
            where settings.scenarios.contains(scenario) {
                guard let mine = cell(scenario, client).medianCPUMicrosecondsPerRequest,
                      let base = cell(scenario, floor).medianCPUMicrosecondsPerRequest,
                      let raw = cell(scenario, .rawCurl).medianCPUMicrosecondsPerRequest, raw > 0 else { continue }
                lines.append(String(format: "- %@ %@: floor %.1f µs (%.2f× raw libcurl's), Curlfire %.1f µs: "
                                    + "%+.1f µs of its own per request", client.title, scenario.rawValue, base,
                                    base / raw, mine, mine - base))
            }
        }
        return lines
    }

    // MARK: - JSON

    func json() throws -> Data {
        struct Document: Codable {
            var date: String
            var host: [String: String]
            var settings: Driver.Settings
            var results: [String: [String: Cell]]
            /// The concurrency sweep per client, ready to plot (scripts/plot-bench.py).
            var sweep: [SweepSeries]
            var targets: [String]
        }
        var results: [String: [String: Cell]] = [:]
        for scenario in settings.scenarios {
            for client in settings.clients { results[scenario.rawValue, default: [:]][client.rawValue] = cell(scenario, client) }
        }
        let document = Document(date: ISO8601DateFormatter().string(from: Date()), host: Self.hostDescription(),
                                settings: settings, results: results, sweep: sweepSeries(), targets: targetLines())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(document)
    }

    /// One client's medians at every measured level of the sweep.
    struct SweepSeries: Codable {
        struct Point: Codable {
            var inFlight: Int
            var requestsPerSecond: Double?
            var cpuMicrosecondsPerRequest: Double?
            var residentKiBPerInFlight: Double?
        }

        var client: String
        var title: String
        var points: [Point]
    }

    func sweepSeries() -> [SweepSeries] {
        let levels = Scenario.sweep.filter(settings.scenarios.contains)
        guard !levels.isEmpty else { return [] }
        return settings.clients.filter(\.inSweep).map { client in
            SweepSeries(client: client.rawValue, title: client.title, points: levels.map { scenario in
                let cell = cell(scenario, client)
                return .init(inFlight: scenario.concurrency, requestsPerSecond: cell.median,
                             cpuMicrosecondsPerRequest: cell.medianCPUMicrosecondsPerRequest,
                             residentKiBPerInFlight: cell.medianResidentKiBPerInFlight)
            })
        }
    }

    static func hostDescription() -> [String: String] {
        var host: [String: String] = [
            "cpus": String(ProcessInfo.processInfo.activeProcessorCount),
            "memoryGiB": String(ProcessInfo.processInfo.physicalMemory >> 30),
            "os": ProcessInfo.processInfo.operatingSystemVersionString,
        ]
        if let version = curlVersion() { host["libcurl"] = version }
        return host
    }

    private static func curlVersion() -> String? {
        guard let pointer = rawcurl_version() else { return nil }
        return String(cString: pointer)
    }
}
