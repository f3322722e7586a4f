import Foundation

/// The parent process: prepares the files, runs every scenario for every client in fresh child
/// processes, interleaved (each repetition runs all scenarios, client order rotated per
/// repetition), then reports medians.
struct Driver {
    struct Settings: Codable {
        var serversJSON: String
        var repetitions = 5
        var seconds = 1.5
        var warmupSeconds = 0.3
        var scenarios = Scenario.allCases
        var clients = ClientKind.allCases
        var jsonOutput: String?
        var markdownOutput: String?
        /// Where the download scenario writes (default `/dev/shm` when it is a writable directory,
        /// else the state directory's scratch folder).
        var downloadDirectory: String?
    }

    let settings: Settings

    func run() throws {
        let environment = try prepareEnvironment()
        var samples: [Scenario: [ClientKind: [Measurement]]] = [:]
        let started = Date()
        for repetition in 0..<settings.repetitions {
            for scenario in settings.scenarios {
                let shift = repetition % settings.clients.count
                let order = Array(settings.clients[shift...] + settings.clients[..<shift])
                for client in order {
                    let measurement = measure(scenario, client, environment: environment)
                    samples[scenario, default: [:]][client, default: []].append(measurement)
                    log(repetition: repetition, scenario, client, measurement)
                }
            }
        }
        let report = Report(settings: settings, environment: environment, samples: samples,
                            elapsed: Date().timeIntervalSince(started))
        let markdown = report.markdown()
        print(markdown)
        if let path = settings.markdownOutput {
            try markdown.write(toFile: path, atomically: true, encoding: .utf8)
        }
        if let path = settings.jsonOutput {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try report.json().write(to: URL(fileURLWithPath: path))
            FileHandle.standardError.write(Data("wrote \(path)\n".utf8))
        }
    }

    private func measure(_ scenario: Scenario, _ client: ClientKind, environment: BenchEnvironment) -> Measurement {
        if scenario.isSweep, !client.inSweep { return .skipped(Scenario.sweepSkipNote) }
        let output = environment.scratchDirectory + "/measurement-\(getpid()).json"
        unlink(output)
        var request = MeasureRequest(scenario: scenario, client: client, environment: environment,
                                     warmupSeconds: scenario.warmup(atLeast: settings.warmupSeconds),
                                     seconds: settings.seconds, spawnedAtNanoseconds: 0)
        let timeout: Double = scenario == .download || scenario == .upload ? 180 : 60 + settings.seconds * 2
        // Each download writes into a folder of its own, removed afterwards with whatever a client
        // left behind (URLSession's temporary file outlives its handler): in /dev/shm that is memory.
        let downloads = environment.downloadDirectory + "/measurement-\(getpid())"
        if scenario == .download {
            try? FileManager.default.removeItem(atPath: downloads)
            guard (try? FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)) != nil
            else { return .failed("cannot create \(downloads)") }
            request.environment.downloadDirectory = downloads
        }
        defer { if scenario == .download { try? FileManager.default.removeItem(atPath: downloads) } }
        request.spawnedAtNanoseconds = nowNanoseconds()
        guard let encoded = try? String(decoding: JSONEncoder().encode(request), as: UTF8.self) else {
            return .failed("could not encode the measurement request")
        }
        let outcome = ChildProcess.run(["measure", encoded, output], timeout: timeout)
        var measurement: Measurement
        if let data = FileManager.default.contents(atPath: output),
           let decoded = try? JSONDecoder().decode(Measurement.self, from: data) {
            measurement = decoded
            if let exit = outcome.exitDescription, measurement.status == .ok {
                measurement = .failed("measured, then the process \(exit)")
            }
        } else {
            measurement = .failed("the measuring process \(outcome.exitDescription ?? "wrote no result")")
        }
        unlink(output)
        return measurement
    }

    private func log(repetition: Int, _ scenario: Scenario, _ client: ClientKind, _ measurement: Measurement) {
        let value = measurement.value.map { String(format: "%.1f %@", $0, scenario.unit) } ?? "-"
        var line = "[\(repetition + 1)/\(settings.repetitions)] \(scenario.rawValue) \(client.rawValue): "
            + "\(measurement.status.rawValue) \(value)"
        if let connects = measurement.connects { line += " (\(connects) new connections)" }
        if let cpu = measurement.cpuMicrosecondsPerRequest {
            line += String(format: ", %.1f µs CPU per request (%d counted)", cpu, measurement.count)
        }
        if let allocations = measurement.allocationsPerRequest { line += String(format: ", %.1f allocs", allocations) }
        if let switches = measurement.contextSwitchesPerRequest { line += String(format: ", %.2f cs", switches) }
        if scenario.isSweep, let peak = measurement.peakRSSMiB, let start = measurement.startRSSMiB {
            line += String(format: ", %.1f KiB RSS per in-flight request", (peak - start) * 1024 / Double(scenario.concurrency))
        }
        if scenario == .download, let peak = measurement.peakRSSMiB { line += String(format: " peak RSS %.0f MiB", peak) }
        if let note = measurement.note, measurement.status != .ok { line += " — \(note)" }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    // MARK: - Files

    /// The request of one child measurement, for running `measure` under a profiler
    /// (scripts/bench-profile.sh).
    func encodedRequest(_ scenario: Scenario, _ client: ClientKind) throws -> String {
        let request = MeasureRequest(scenario: scenario, client: client, environment: try prepareEnvironment(),
                                     warmupSeconds: scenario.warmup(atLeast: settings.warmupSeconds),
                                     seconds: settings.seconds, spawnedAtNanoseconds: nowNanoseconds())
        return String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
    }

    /// Reads servers.json and generates the JSON document and the upload file.
    private func prepareEnvironment() throws -> BenchEnvironment {
        let data = try Data(contentsOf: URL(fileURLWithPath: settings.serversJSON))
        guard let servers = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let http = servers["nginx_http"] as? String, let https = servers["nginx_https"] as? String,
              let pki = servers["pki"] as? String, let staticDirectory = servers["static_dir"] as? String,
              let stateDirectory = servers["state_dir"] as? String,
              let largeSize = (servers["large_file_size"] as? NSNumber)?.int64Value
        else { throw BenchError("\(settings.serversJSON) has no nginx entries (start the servers with --nginx)") }

        let scratch = stateDirectory + "/bench-scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

        let jsonPath = staticDirectory + "/bench-1mb.json"
        let document = try Payload.makeJSON()
        if FileManager.default.contents(atPath: jsonPath) != document {
            try document.write(to: URL(fileURLWithPath: jsonPath), options: .atomic)
        }

        let uploadPath = stateDirectory + "/bench-upload-256mib.bin"
        try makeUploadFile(at: uploadPath, size: 256 << 20, source: staticDirectory + "/large.bin")

        let small = FileManager.default.contents(atPath: staticDirectory + "/small.txt")?.count ?? 0
        let downloads = try downloadDirectory(scratch: scratch)
        // The leaf is valid for 127.0.0.1 too; "localhost" would make every client try ::1 first,
        // where nginx does not listen, on each new connection.
        let httpsBase = https.replacingOccurrences(of: "://localhost:", with: "://127.0.0.1:")
        return BenchEnvironment(httpBase: http, httpsBase: httpsBase, rootCA: pki + "/root-ca.pem",
                                largeFileSize: largeSize, uploadFile: uploadPath, scratchDirectory: scratch,
                                jsonPath: jsonPath, smallBodyLength: small, downloadDirectory: downloads)
    }

    /// `--download-dir`, else `/dev/shm` (memory: the disk bounds no client), else `scratch`.
    private func downloadDirectory(scratch: String) throws -> String {
        if let requested = settings.downloadDirectory {
            try FileManager.default.createDirectory(atPath: requested, withIntermediateDirectories: true)
            guard access(requested, W_OK) == 0 else { throw BenchError("cannot write to \(requested)") }
            return requested
        }
        let shm = "/dev/shm/curlfire-bench-\(getuid())"
        if (try? FileManager.default.createDirectory(atPath: shm, withIntermediateDirectories: true)) != nil,
           access(shm, W_OK) == 0 {
            return shm
        }
        return scratch
    }

    /// The first `size` bytes of nginx's large.bin (incompressible), made once.
    private func makeUploadFile(at path: String, size: Int, source: String) throws {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           (attributes[.size] as? Int) == size { return }
        guard let input = FileHandle(forReadingAtPath: source) else { throw BenchError("cannot read \(source)") }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: path + ".tmp", contents: nil),
              let output = FileHandle(forWritingAtPath: path + ".tmp") else { throw BenchError("cannot write \(path)") }
        var remaining = size
        while remaining > 0 {
            let chunk = try input.read(upToCount: min(remaining, 8 << 20)) ?? Data()
            guard !chunk.isEmpty else { throw BenchError("\(source) is shorter than \(size) bytes") }
            try output.write(contentsOf: chunk)
            remaining -= chunk.count
        }
        try output.close()
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
