import Curlfire
import Foundation

/// Curlfire through its callback API (`responseData { … }`) or its async API
/// (`serializingData().value`). One `SessionManager` per measurement, its connection limit set to
/// the scenario's concurrency like every other client's.
struct CurlfireClient {
    let useAsync: Bool
    let request: MeasureRequest

    private var environment: BenchEnvironment { request.environment }

    func measure() async -> Measurement {
        let scenario = request.scenario
        if let loop = environment.smallGetLoop(scenario) {
            return await closedLoop(url: loop.url, concurrency: loop.concurrency, connections: loop.connections,
                                    version: loop.http2 ? .automatic : .http1_1)
        }
        switch scenario {
        case .sequential, .concurrent8, .concurrent64, .multiplexed64, .inFlight1, .inFlight64, .inFlight1024,
             .inFlight4096:
            preconditionFailure("a small-GET scenario has its loop")
        case .handshakes:
            return await closedLoop(url: environment.httpsBase + "/small.txt", concurrency: 1, connections: 1,
                                    version: .http1_1, headers: ["Connection": "close"], countConnections: true)
        case .download:
            return await CurlfireDownload.measure(environment: environment)
        case .upload:
            return await upload()
        case .decodeJSON:
            return await decodeLoop()
        case .coldStart:
            return await coldStart()
        case .cacheHit:
            return await cacheHits()
        }
    }

    private func makeSession(connections: Int, version: SessionConfiguration.HTTPVersion = .http1_1)
        -> SessionManager {
        var configuration = SessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.httpVersion = version
        // The Task notifications are posted once some code has read one of their names; the default
        // measures an app that observes none (nothing posted). CURLFIRE_BENCH_NOTIFICATIONS=observed
        // measures one that read a name (every notification posted, as an observing app pays);
        // =0 a session that opted out (SessionConfiguration.postsTaskNotifications).
        let notifications = ProcessInfo.processInfo.environment["CURLFIRE_BENCH_NOTIFICATIONS"]
        if notifications == "observed" { _ = Notification.Name.Task.DidComplete }
        configuration.postsTaskNotifications = notifications != "0"
        // CURLFIRE_BENCH_RECEIVE_BUFFER=<bytes> measures another receive buffer than the default
        // (SessionConfiguration.receiveBufferSize; docs/Performance.md, "where libcurl's time goes").
        if let bytes = ProcessInfo.processInfo.environment["CURLFIRE_BENCH_RECEIVE_BUFFER"].flatMap({ Int($0) }) {
            configuration.receiveBufferSize = bytes
        }
        CurlfireTrust.apply(rootCA: environment.rootCA, to: &configuration)
        return SessionManager(configuration: configuration)
    }

    /// The statuses every measured request must end with.
    private static let accepted = [200, 204]

    private static func failure(_ response: DataResponse<Data>) -> String? {
        if let error = response.error { return "\(error)" }
        guard let status = response.response?.statusCode, status == 200 || status == 204 else {
            return "HTTP status \(response.response?.statusCode ?? -1)"
        }
        return nil
    }

    private func closedLoop(url: String, concurrency: Int, connections: Int,
                            version: SessionConfiguration.HTTPVersion = .http1_1, headers: HTTPHeaders? = nil,
                            countConnections: Bool = false) async -> Measurement {
        let session = makeSession(connections: connections, version: version)
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        // The status is checked the Alamofire way, by `validate(statusCode:)`: the outcome is in
        // `response.error`, and the response head never has to become a Foundation `HTTPURLResponse`
        // (about 1 µs per well-known header, docs/Performance.md) since nothing here reads it.
        let result: @Sendable (DataResponse<Data>) -> LoopResult = { response in
            if let error = response.error { return .failed("\(error)") }
            guard countConnections else { return .succeeded }
            return .succeededOnNewConnections(response.metrics.map { $0.isReusedConnection ? 0 : 1 } ?? 0)
        }
        if useAsync {
            await runAsyncLoop(concurrency: concurrency, tally: tally) {
                result(await session.request(url, headers: headers).validate(statusCode: Self.accepted)
                    .serializingData().response)
            }
        } else {
            await runCallbackLoop(concurrency: concurrency, tally: tally) { done in
                session.request(url, headers: headers).validate(statusCode: Self.accepted).responseData { done(result($0)) }
            }
        }
        return tally.rate(countsConnections: countConnections)
    }

    /// Sequential requests answered by a memory `ResponseCache`: the first stores nginx's small file
    /// (the handler makes it fresh for an hour, nginx sends no freshness itself); every later one is
    /// a hit that sends nothing (checked: each response must say `.hit`).
    private func cacheHits() async -> Measurement {
        var configuration = SessionConfiguration.default
        configuration.httpVersion = .http1_1
        configuration.responseCache = ResponseCache(memoryCapacity: 4 << 20, diskCapacity: 0, directory: nil)
        let fresh = ResponseCacher(behavior: .modify { _, cached in
            var headers = cached.response.allHeaderFields as? [String: String] ?? [:]
            headers["Cache-Control"] = "max-age=3600"
            guard let url = cached.response.url,
                  let response = HTTPURLResponse(url: url, statusCode: cached.response.statusCode,
                                                 httpVersion: "HTTP/1.1", headerFields: headers) else { return cached }
            return CachedResponse(response: response, data: cached.data)
        })
        let session = SessionManager(configuration: configuration, cachedResponseHandler: fresh)
        let url = environment.httpBase + "/small.txt"
        let first = await session.request(url).serializingData().response
        if let failure = Self.failure(first) { return .failed("priming the cache: \(failure)") }
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        let result: @Sendable (DataResponse<Data>) -> LoopResult = { response in
            if let error = response.error { return .failed("\(error)") } // validate(statusCode:), as in closedLoop
            return response.cacheStatus == .hit ? .succeeded : .failed("not a cache hit: \(response.cacheStatus)")
        }
        if useAsync {
            await runAsyncLoop(concurrency: 1, tally: tally) {
                result(await session.request(url).validate(statusCode: Self.accepted).serializingData().response)
            }
        } else {
            await runCallbackLoop(concurrency: 1, tally: tally) { done in
                session.request(url).validate(statusCode: Self.accepted).responseData { done(result($0)) }
            }
        }
        return tally.rate(countsConnections: false)
    }

    private func upload() async -> Measurement {
        let session = makeSession(connections: 1)
        let file = URL(fileURLWithPath: environment.uploadFile)
        let url = environment.httpBase + "/discard"
        let start = nowNanoseconds()
        let response: DataResponse<Data>
        if useAsync {
            response = await session.upload(file, to: url).serializingData().response
        } else {
            response = await withCheckedContinuation { continuation in
                session.upload(file, to: url).responseData { continuation.resume(returning: $0) }
            }
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        if let failure = Self.failure(response) { return .failed(failure) }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
        // bytesSent counts the request head as well as the body.
        let sent = response.metrics?.bytesSent ?? -1
        if sent < size { return .failed("sent \(sent) of \(size) bytes") }
        return Measurement(status: .ok, value: Double(size) / seconds / 1e6, count: 1, seconds: seconds, bytes: size)
    }

    private func decodeLoop() async -> Measurement {
        let session = makeSession(connections: 1)
        let url = environment.httpBase + "/" + (environment.jsonPath as NSString).lastPathComponent
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        let check: @Sendable (DataResponse<[Item]>) -> LoopResult = { response in
            if let error = response.error { return .failed("\(error)") }
            return response.value?.count == Payload.itemCount ? .succeeded : .failed("wrong item count")
        }
        if useAsync {
            await runAsyncLoop(concurrency: 1, tally: tally) {
                check(await session.request(url).serializingDecodable([Item].self).response)
            }
        } else {
            await runCallbackLoop(concurrency: 1, tally: tally) { done in
                session.request(url).responseDecodable(of: [Item].self) { done(check($0)) }
            }
        }
        return tally.rate()
    }

    private func coldStart() async -> Measurement {
        let session = SessionManager()
        let url = environment.httpBase + "/small.txt"
        let response: DataResponse<Data>
        if useAsync {
            response = await session.request(url).serializingData().response
        } else {
            response = await withCheckedContinuation { continuation in
                session.request(url).responseData { continuation.resume(returning: $0) }
            }
        }
        let elapsed = Double(nowNanoseconds() - request.spawnedAtNanoseconds) / 1e6
        if let failure = Self.failure(response) { return .failed(failure) }
        return Measurement(status: .ok, value: elapsed, count: 1, seconds: elapsed / 1000)
    }
}

/// Trusting the test PKI's root through `SessionConfiguration.trustedRootCertificates`.
enum CurlfireTrust {
    static func apply(rootCA: String, to configuration: inout SessionConfiguration) {
        guard let root = try? Certificate(contentsOf: URL(fileURLWithPath: rootCA)) else { return }
        configuration.trustedRootCertificates = [root]
    }
}

/// Curlfire's 1 GiB download: a `DownloadRequest` on a one-connection session to a file in
/// `downloadDirectory` (the child points `TMPDIR` there too, so the temporary file Curlfire writes
/// is only renamed, not copied across file systems), checked for its size.
enum CurlfireDownload {
    static func measure(environment: BenchEnvironment) async -> Measurement {
        var configuration = SessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        // CURLFIRE_BENCH_RECEIVE_BUFFER, as for the other scenarios (CurlfireClient.makeSession).
        if let bytes = ProcessInfo.processInfo.environment["CURLFIRE_BENCH_RECEIVE_BUFFER"].flatMap({ Int($0) }) {
            configuration.receiveBufferSize = bytes
        }
        let session = SessionManager(configuration: configuration)
        let destination = URL(fileURLWithPath: environment.downloadDirectory + "/curlfire.download")
        try? FileManager.default.removeItem(at: destination)
        let started = DispatchTime.now().uptimeNanoseconds
        let response = await session.download(environment.httpBase + "/large.bin", to: { _, _ in
            (destination, [.removePreviousFile, .createIntermediateDirectories])
        }).serializingDownloadedFileURL().response
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        defer { try? FileManager.default.removeItem(at: destination) }
        if let error = response.error { return .failed("\(error)") }
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: destination.path)[.size]) as? NSNumber)?.int64Value ?? 0
        guard bytes == environment.largeFileSize else {
            return .failed("downloaded \(bytes) bytes, expected \(environment.largeFileSize)")
        }
        return Measurement(status: .ok, value: Double(bytes) / seconds / 1e6, count: 1, seconds: seconds, bytes: bytes)
    }
}
