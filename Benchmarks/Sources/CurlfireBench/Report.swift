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
        return Cell(median: median, unit: scenario.unit, ratioToRawLibcurl: ratio, okSamples: ok.count,
                    failedSamples: failed.count, skipped: skipped != nil && ok.isEmpty,
                    note: skipped?.note ?? failed.first?.note,
                    medianPeakRSSMiB: Self.median(ok.compactMap(\.peakRSSMiB)),
                    medianPeakGrowthMiB: Self.median(ok.compactMap { sample in
                        sample.peakRSSMiB.flatMap { peak in sample.startRSSMiB.map { peak - $0 } }
                    }),
                    medianNewConnections: Self.median(ok.compactMap { $0.connects.map(Double.init) }),
                    samples: all)
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
        for scenario in settings.scenarios {
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
        var text = lines.joined(separator: "\n") + "\n\n"
        text += "Median of \(settings.repetitions) interleaved repetitions; (×) = speed relative to raw libcurl "
            + "(higher is better; for the cold start raw time ÷ client time). "
            + "Closed-loop windows \(settings.seconds) s after \(settings.warmupSeconds) s warm-up. "
            + String(format: "Run took %.0f s.", elapsed) + "\n"
        if !notes.isEmpty {
            text += "\n" + notes.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n") + "\n"
        }
        let targets = targetLines()
        if !targets.isEmpty { text += "\nTargets (issue 7 point 4):\n\n" + targets.joined(separator: "\n") + "\n" }
        return text
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
        if cell.failedSamples > 0 { text += " (\(cell.failedSamples) failed)" + noteMark(cell.note) }
        return text
    }

    // MARK: - Targets

    /// Issue 7's targets, each for both Curlfire APIs.
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
        for client in [ClientKind.curlfireCallback, .curlfireAsync] where settings.clients.contains(client) {
            let name = client.title
            check("\(name) sequential vs raw libcurl", ratio(.sequential, client, to: .rawCurl), atLeast: 0.5)
            check("\(name) sequential vs AsyncHTTPClient", ratio(.sequential, client, to: .asyncHTTPClient), atLeast: 2)
            for scenario in [Scenario.concurrent8, .concurrent64, .multiplexed64] {
                check("\(name) \(scenario.rawValue) vs raw libcurl", ratio(scenario, client, to: .rawCurl), atLeast: 0.9)
            }
            check("\(name) 1 GiB download vs raw libcurl", ratio(.download, client, to: .rawCurl), atLeast: 0.9)
            if let peak = cell(.download, client).medianPeakRSSMiB, let growth = cell(.download, client).medianPeakGrowthMiB {
                lines.append(String(format: "- %@ 1 GiB download peak memory: +%.0f MiB during the download, "
                                    + "%.0f MiB process peak (target < 64 MiB) — %@", name, growth, peak,
                                    growth < 64 ? "met" : "NOT met"))
            } else {
                lines.append("- \(name) 1 GiB download peak RSS: not measured")
            }
            check("\(name) new HTTPS connections vs raw libcurl", ratio(.handshakes, client, to: .rawCurl), atLeast: 0.8)
            if let hit = cell(.cacheHit, client).median, let network = cell(.sequential, client).median, network > 0 {
                lines.append(String(format: "- %@ fresh cache hit vs its own loopback GET: %.1f× (issue 15: ≥ 10×) — %@",
                                    name, hit / network, hit / network >= 10 ? "met" : "NOT met"))
            }
            let slower = settings.scenarios.filter { scenario in
                (ratio(scenario, client, to: .asyncHTTPClient) ?? 1) < 1
            }
            let unmeasured = settings.scenarios.filter { ratio($0, client, to: .asyncHTTPClient) == nil }
            lines.append("- \(name) nothing slower than AsyncHTTPClient: "
                + (slower.isEmpty ? "met" : "NOT met (slower in " + slower.map(\.rawValue).joined(separator: ", ") + ")")
                + (unmeasured.isEmpty ? "" : "; not compared: " + unmeasured.map(\.rawValue).joined(separator: ", ")))
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
            var targets: [String]
        }
        var results: [String: [String: Cell]] = [:]
        for scenario in settings.scenarios {
            for client in settings.clients { results[scenario.rawValue, default: [:]][client.rawValue] = cell(scenario, client) }
        }
        let document = Document(date: ISO8601DateFormatter().string(from: Date()), host: Self.hostDescription(),
                                settings: settings, results: results, targets: targetLines())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(document)
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
