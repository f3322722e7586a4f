// CurlfireBench: Curlfire side by side with raw libcurl, AsyncHTTPClient and URLSession.
//
//   CurlfireBench run --servers <servers.json> [--repetitions N] [--seconds S] [--warmup S]
//                     [--scenarios a,b] [--clients a,b] [--json PATH] [--markdown PATH]
//                     [--download-dir DIR]
//   CurlfireBench measure <request JSON> <output path>      (internal: one child measurement)
//   CurlfireBench request --servers <servers.json> --scenarios S --clients C [--seconds S] [--warmup S]
//                                                           prints one `measure` request (profiling)
//   CurlfireBench list                                      scenario and client names
//
// `make bench` starts nginx (scripts/bench.sh) and runs `run`. See docs/Performance.md.
import Foundation

func usage() -> Never {
    FileHandle.standardError.write(Data("""
    usage: CurlfireBench run --servers <servers.json> [--repetitions N] [--seconds S] [--warmup S]
                             [--scenarios a,b] [--clients a,b] [--json PATH] [--markdown PATH]
                             [--download-dir DIR]
           CurlfireBench list

    """.utf8))
    exit(2)
}

func parseRun(_ arguments: ArraySlice<String>) -> Driver.Settings {
    var settings = Driver.Settings(serversJSON: "")
    var iterator = arguments.makeIterator()
    while let option = iterator.next() {
        guard let value = iterator.next() else { usage() }
        switch option {
        case "--servers": settings.serversJSON = value
        case "--repetitions": settings.repetitions = Int(value) ?? settings.repetitions
        case "--seconds": settings.seconds = Double(value) ?? settings.seconds
        case "--warmup": settings.warmupSeconds = Double(value) ?? settings.warmupSeconds
        case "--scenarios":
            settings.scenarios = value.split(separator: ",").map { name in
                Scenario(rawValue: String(name)) ?? { print("unknown scenario \(name)"); usage() }()
            }
        case "--clients":
            settings.clients = value.split(separator: ",").map { name in
                ClientKind(rawValue: String(name)) ?? { print("unknown client \(name)"); usage() }()
            }
        case "--json": settings.jsonOutput = value
        case "--markdown": settings.markdownOutput = value
        case "--download-dir": settings.downloadDirectory = value
        default: usage()
        }
    }
    if settings.serversJSON.isEmpty { usage() }
    // Raw libcurl is every ratio's denominator: always measured.
    if !settings.clients.contains(.rawCurl) { settings.clients.insert(.rawCurl, at: 0) }
    return settings
}

/// One measurement in this (child) process; the result goes to `output` as JSON.
func measure(_ encodedRequest: String, output: String) async -> Int32 {
    guard let request = try? JSONDecoder().decode(MeasureRequest.self, from: Data(encodedRequest.utf8)) else {
        FileHandle.standardError.write(Data("measure: bad request\n".utf8))
        return 2
    }
    raiseDescriptorLimit(toAtLeast: 4 * request.scenario.concurrency + 1024)
    if request.scenario == .download {
        // Curlfire (and URLSession) write a download to a temporary file first and then move it:
        // keep that file on the target's file system, or the move becomes a copy.
        setenv("TMPDIR", request.environment.downloadDirectory, 1)
    }
    let startRSS = residentMiB()
    var measurement: Measurement
    switch request.client {
    case .rawCurl: measurement = await RawCurlClient(request: request).measure()
    case .curlfireCallback: measurement = await CurlfireClient(useAsync: false, request: request).measure()
    case .curlfireAsync: measurement = await CurlfireClient(useAsync: true, request: request).measure()
    case .asyncHTTPClient: measurement = await AHCClient(request: request).measure()
    case .urlSession: measurement = await URLSessionClient(request: request).measure()
    case .handoffCallback: measurement = await HandoffClient(useAsync: false, request: request).measure()
    case .handoffAsync: measurement = await HandoffClient(useAsync: true, request: request).measure()
    }
    measurement.startRSSMiB = startRSS
    measurement.peakRSSMiB = peakResidentMiB()
    do {
        try JSONEncoder().encode(measurement).write(to: URL(fileURLWithPath: output))
        return 0
    } catch {
        FileHandle.standardError.write(Data("measure: cannot write \(output): \(error)\n".utf8))
        return 1
    }
}

/// Raises RLIMIT_NOFILE's soft limit to its hard limit, and both to `needed` when the hard one is
/// lower (possible as root): thousands of connections in flight need as many descriptors.
func raiseDescriptorLimit(toAtLeast needed: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    if limit.rlim_max < rlim_t(needed) {
        var raised = rlimit(rlim_cur: rlim_t(needed), rlim_max: rlim_t(needed))
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return }
    }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// This process's resident set now (/proc/self/statm), MiB.
func residentMiB() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// This process's peak resident set (VmHWM), MiB. Not wait4's ru_maxrss: after posix_spawn that
/// starts from the parent's resident set.
func peakResidentMiB() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return nil }
    return kib / 1024
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "run":
    do {
        try Driver(settings: parseRun(arguments.dropFirst(2))).run()
    } catch {
        FileHandle.standardError.write(Data("CurlfireBench: \(error)\n".utf8))
        exit(1)
    }
case "measure":
    guard arguments.count == 4 else { usage() }
    exit(await measure(arguments[2], output: arguments[3]))
case "request":
    let settings = parseRun(arguments.dropFirst(2))
    do {
        print(try Driver(settings: settings).encodedRequest(settings.scenarios[0], settings.clients.last ?? .rawCurl))
    } catch {
        FileHandle.standardError.write(Data("CurlfireBench: \(error)\n".utf8))
        exit(1)
    }
case "list":
    print("scenarios: " + Scenario.allCases.map(\.rawValue).joined(separator: ","))
    print("clients:   " + ClientKind.allCases.map(\.rawValue).joined(separator: ","))
default:
    usage()
}
