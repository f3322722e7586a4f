import Foundation

/// The clients compared, in table order. Raw libcurl (C) is the ceiling every ratio divides by.
enum ClientKind: String, CaseIterable, Codable, Sendable {
    case rawCurl = "raw-libcurl"
    case curlfireCallback = "curlfire-callback"
    case curlfireAsync = "curlfire-async"
    case asyncHTTPClient = "async-http-client"
    case urlSession = "urlsession"
    /// The floor of a Swift API over a libcurl engine thread, no Curlfire (Clients/HandoffClient.swift).
    case handoffCallback = "libcurl-handoff-callback"
    case handoffAsync = "libcurl-handoff-async"

    var title: String {
        switch self {
        case .rawCurl: "raw libcurl (C)"
        case .curlfireCallback: "Curlfire callback"
        case .curlfireAsync: "Curlfire async"
        case .asyncHTTPClient: "AsyncHTTPClient"
        case .urlSession: "URLSession"
        case .handoffCallback: "libcurl hand-off, callback"
        case .handoffAsync: "libcurl hand-off, async"
        }
    }

    var isCurlfire: Bool { self == .curlfireCallback || self == .curlfireAsync }

    /// Whether the client runs in the concurrency sweep (Curlfire beside raw libcurl and AsyncHTTPClient).
    var inSweep: Bool { self == .rawCurl || isCurlfire || self == .asyncHTTPClient }
}

/// What is measured. Every scenario is run for every client in each repetition (order rotated).
enum Scenario: String, CaseIterable, Codable, Sendable {
    case sequential = "sequential-small"
    case concurrent8 = "concurrent-8-h1"
    case concurrent64 = "concurrent-64-h1"
    case multiplexed64 = "multiplexed-64-h2"
    case handshakes = "new-https-connections"
    case download = "download-1gib"
    case upload = "upload-256mib"
    case decodeJSON = "decode-json-1mb"
    case coldStart = "cold-start"
    case cacheHit = "cache-hit"
    /// The concurrency sweep: small GETs over HTTP/1.1 keep-alive, as many connections as requests
    /// in flight, every client on a multi handle (raw libcurl) or a session (Curlfire).
    case inFlight1 = "inflight-1-h1"
    case inFlight64 = "inflight-64-h1"
    case inFlight1024 = "inflight-1024-h1"
    case inFlight4096 = "inflight-4096-h1"

    /// The sweep's levels, in order.
    static let sweep: [Scenario] = [.inFlight1, .inFlight64, .inFlight1024, .inFlight4096]

    var isSweep: Bool { Self.sweep.contains(self) }

    /// Why a client outside the sweep shows no figure there.
    static let sweepSkipNote = "not in the concurrency sweep, which compares Curlfire with raw libcurl and AsyncHTTPClient"

    var title: String {
        switch self {
        case .sequential: "sequential small GETs, 1 keep-alive conn"
        case .concurrent8: "8 concurrent small GETs, HTTP/1.1"
        case .concurrent64: "64 concurrent small GETs, HTTP/1.1"
        case .multiplexed64: "64 multiplexed small GETs, HTTP/2 (TLS)"
        case .handshakes: "new HTTPS connections (TLS 1.3, sequential)"
        case .download: "1 GiB download to a file"
        case .upload: "256 MiB upload from a file"
        case .decodeJSON: "GET + decode 1 MB JSON into Decodable"
        case .coldStart: "cold start to first response"
        case .cacheHit: "fresh cache hit (raw libcurl: the loopback GET it replaces)"
        case .inFlight1, .inFlight64, .inFlight1024, .inFlight4096:
            "\(concurrency) in flight, HTTP/1.1 keep-alive (sweep)"
        }
    }

    var unit: String {
        switch self {
        case .sequential, .concurrent8, .concurrent64, .multiplexed64, .cacheHit,
             .inFlight1, .inFlight64, .inFlight1024, .inFlight4096: "req/s"
        case .handshakes: "conn/s"
        case .download, .upload: "MB/s"
        case .decodeJSON: "decodes/s"
        case .coldStart: "ms"
        }
    }

    /// Whether a larger value is better (`false` only for latencies).
    var higherIsBetter: Bool { self != .coldStart }

    /// Concurrency of the closed-loop scenarios (1 for the sequential ones).
    var concurrency: Int {
        switch self {
        case .concurrent8: 8
        case .concurrent64, .multiplexed64, .inFlight64: 64
        case .inFlight1024: 1024
        case .inFlight4096: 4096
        default: 1
        }
    }

    /// Whether a request counts as one unit of the rate (so CPU per request is meaningful).
    var countsRequests: Bool { unit == "req/s" || unit == "conn/s" || unit == "decodes/s" }

    /// The warm-up this scenario needs at least: thousands of connections take longer to open
    /// than the default warm-up on a loaded machine.
    func warmup(atLeast requested: Double) -> Double {
        concurrency >= 1024 ? max(requested, 2.0) : requested
    }

    /// Whether the scenario talks to the TLS port (and so needs the test root trusted).
    var usesTLS: Bool { self == .multiplexed64 || self == .handshakes }
}

/// One measurement of one client in one scenario, written by the child process as JSON.
struct Measurement: Codable, Sendable {
    enum Status: String, Codable, Sendable {
        case ok
        case failed
        /// Not measured on purpose (a missing feature); `note` says why.
        case skipped
    }

    var status: Status
    /// In the scenario's unit.
    var value: Double?
    /// Requests, transfers or connections counted.
    var count: Int = 0
    var seconds: Double = 0
    var bytes: Int64 = 0
    /// New connections seen in the window where the client reports them (checks the scenario).
    var connects: Int?
    var note: String?
    /// The child's peak resident set (VmHWM) at the end of the measurement.
    var peakRSSMiB: Double?
    /// The child's resident set when the measurement began (binary and libraries loaded).
    var startRSSMiB: Double?
    /// Process CPU time (getrusage RUSAGE_SELF) spent in user mode over the timed window only
    /// (the same window as `count`; warm-up and set-up excluded). Closed-loop scenarios only.
    var userCPUSeconds: Double?
    /// The same, in the kernel.
    var systemCPUSeconds: Double?

    /// Context switches of the process (getrusage: voluntary + involuntary, every thread) over the window.
    var contextSwitches: Int?
    /// Heap allocations of the process over the window (malloc, calloc, realloc, the aligned forms),
    /// when Benchmarks/AllocCounter is preloaded; raw libcurl's count is libcurl's own.
    var allocations: Int?

    /// Context switches per counted request over the window.
    var contextSwitchesPerRequest: Double? {
        guard let contextSwitches, count > 0 else { return nil }
        return Double(contextSwitches) / Double(count)
    }

    /// Allocations per counted request over the window.
    var allocationsPerRequest: Double? {
        guard let allocations, count > 0 else { return nil }
        return Double(allocations) / Double(count)
    }

    /// Process CPU time (user + system) per counted request over the window, µs.
    var cpuMicrosecondsPerRequest: Double? {
        guard let user = userCPUSeconds, let system = systemCPUSeconds, count > 0 else { return nil }
        return (user + system) * 1e6 / Double(count)
    }

    static func skipped(_ note: String) -> Measurement { Measurement(status: .skipped, note: note) }
    static func failed(_ note: String) -> Measurement { Measurement(status: .failed, note: note) }
}

/// The servers and files one run uses, read from `servers.json` plus what the driver generated.
struct BenchEnvironment: Codable, Sendable {
    var httpBase: String
    var httpsBase: String
    var rootCA: String
    var largeFileSize: Int64
    var uploadFile: String
    var scratchDirectory: String
    var jsonPath: String
    var smallBodyLength: Int
    /// Where every client writes the 1 GiB download (`/dev/shm` by default, so no client is bound
    /// by the disk; `--download-dir`).
    var downloadDirectory: String
}

/// How a small-GET closed loop runs: the URL, the workers, the connection limit per host, and
/// whether over one HTTP/2 connection.
struct SmallGetLoop {
    let url: String
    let concurrency: Int
    let connections: Int
    let http2: Bool
}

extension BenchEnvironment {
    /// The small-GET loop of `scenario` (sequential, 8 and 64 in flight, the sweep, 64 multiplexed),
    /// the same for every client; `nil` for the other scenarios.
    func smallGetLoop(_ scenario: Scenario) -> SmallGetLoop? {
        switch scenario {
        case .sequential:
            SmallGetLoop(url: httpBase + "/small.txt", concurrency: 1, connections: 1, http2: false)
        case .concurrent8, .concurrent64, .inFlight1, .inFlight64, .inFlight1024, .inFlight4096:
            SmallGetLoop(url: httpBase + "/small.txt", concurrency: scenario.concurrency,
                         connections: scenario.concurrency, http2: false)
        case .multiplexed64:
            SmallGetLoop(url: httpsBase + "/small.txt", concurrency: 64, connections: 1, http2: true)
        default:
            nil
        }
    }
}

/// Parameters of one child measurement.
struct MeasureRequest: Codable, Sendable {
    var scenario: Scenario
    var client: ClientKind
    var environment: BenchEnvironment
    var warmupSeconds: Double
    var seconds: Double
    /// CLOCK_MONOTONIC (ns) just before the child was spawned (cold start).
    var spawnedAtNanoseconds: UInt64
}
