import CRawCurl
import Foundation

/// libcurl driven from C (Sources/CRawCurl): the ceiling. The C code runs each whole measurement.
struct RawCurlClient {
    let request: MeasureRequest

    private var environment: BenchEnvironment { request.environment }

    func measure() async -> Measurement {
        let scenario = request.scenario
        switch scenario {
        case .sequential, .cacheHit: // for a cache hit: the network request the hit replaces
            return run(rawcurl_sequential, url: environment.httpBase + "/small.txt")
        case .concurrent8, .concurrent64, .inFlight1, .inFlight64, .inFlight1024, .inFlight4096:
            return run(rawcurl_concurrent, url: environment.httpBase + "/small.txt",
                       concurrency: scenario.concurrency, connections: scenario.concurrency)
        case .multiplexed64:
            return run(rawcurl_concurrent, url: environment.httpsBase + "/small.txt", http2: true,
                       concurrency: 64, connections: 1)
        case .handshakes:
            return run(rawcurl_handshakes, url: environment.httpsBase + "/small.txt", countsConnections: true)
        case .download:
            let path = environment.downloadDirectory + "/raw-libcurl.download"
            defer { unlink(path) }
            var result = rawcurl_result()
            rawcurl_download(environment.httpBase + "/large.bin", path, &result)
            return transfer(result, expected: environment.largeFileSize)
        case .upload:
            var result = rawcurl_result()
            rawcurl_upload(environment.httpBase + "/discard", environment.uploadFile, &result)
            return transfer(result, expected: nil)
        case .decodeJSON:
            return decodeLoop()
        case .coldStart:
            guard let fetcher = rawcurl_fetcher_create() else { return .failed("curl_easy_init failed") }
            defer { rawcurl_fetcher_destroy(fetcher) }
            var body: UnsafePointer<UInt8>?
            var length = 0
            var error = [CChar](repeating: 0, count: 256)
            let status = rawcurl_fetch(fetcher, environment.httpBase + "/small.txt", &body, &length, &error)
            let elapsed = Double(nowNanoseconds() - request.spawnedAtNanoseconds) / 1e6
            guard status == 200 else { return .failed(status < 0 ? Self.string(error) : "HTTP status \(status)") }
            return Measurement(status: .ok, value: elapsed, count: 1, seconds: elapsed / 1000)
        }
    }

    private func run(_ body: (UnsafePointer<rawcurl_options>?, UnsafeMutablePointer<rawcurl_result>?) -> Int32,
                     url: String, http2: Bool = false, concurrency: Int = 1, connections: Int = 0,
                     countsConnections: Bool = false) -> Measurement {
        var result = rawcurl_result()
        // The window starts now, like the Swift clients' (set-up inside the C code is warm-up).
        let window = Window(warmup: request.warmupSeconds, seconds: request.seconds)
        url.withCString { url in
            environment.rootCA.withCString { cainfo in
                var options = rawcurl_options(url: url, cainfo: cainfo, http2: http2 ? 1 : 0,
                                              concurrency: Int32(concurrency),
                                              max_host_connections: Int32(connections),
                                              window_start_ns: window.start, window_end_ns: window.end)
                _ = body(&options, &result)
            }
        }
        if result.errors > 0 { return .failed("\(result.errors) failed request(s): \(Self.message(result))") }
        var measurement = Measurement(status: .ok, value: Double(result.completed) / result.seconds,
                                      count: result.completed, seconds: result.seconds, bytes: result.bytes,
                                      connects: countsConnections ? result.connects : nil)
        window.cpu.fill(&measurement)
        return measurement
    }

    private func transfer(_ result: rawcurl_result, expected: Int64?) -> Measurement {
        if result.errors > 0 || result.completed != 1 { return .failed(Self.message(result)) }
        if let expected, result.bytes != expected { return .failed("received \(result.bytes) of \(expected) bytes") }
        return Measurement(status: .ok, value: Double(result.bytes) / result.seconds / 1e6, count: 1,
                           seconds: result.seconds, bytes: result.bytes)
    }

    private func decodeLoop() -> Measurement {
        guard let fetcher = rawcurl_fetcher_create() else { return .failed("curl_easy_init failed") }
        defer { rawcurl_fetcher_destroy(fetcher) }
        let url = environment.httpBase + "/" + (environment.jsonPath as NSString).lastPathComponent
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        var error = [CChar](repeating: 0, count: 256)
        repeat {
            var body: UnsafePointer<UInt8>?
            var length = 0
            let status = rawcurl_fetch(fetcher, url, &body, &length, &error)
            if status != 200 || body == nil {
                tally.record(.failed(status < 0 ? Self.string(error) : "HTTP status \(status)"))
                continue
            }
            // The bytes are copied once into Data, as any Swift caller of a C client would.
            let data = Data(bytes: body!, count: length)
            tally.record(LoopResult(failure: Payload.decode(data)))
        } while !tally.shouldStop
        return tally.rate()
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func message(_ result: rawcurl_result) -> String {
        withUnsafeBytes(of: result.error) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
