import Foundation
import FoundationNetworking

/// URLSession from swift-corelibs-foundation (FoundationNetworking, itself on libcurl), through
/// its completion-handler API. No URL cache, so every request goes to the server.
struct URLSessionClient {
    let request: MeasureRequest

    private var environment: BenchEnvironment { request.environment }

    func measure() async -> Measurement {
        let scenario = request.scenario
        if scenario.usesTLS {
            // No API trusts a private root here: no trust challenge is delivered on Linux, and the
            // CA-file override (URLSessionCertificateAuthorityInfoFile) exists only in debug builds.
            return .skipped("FoundationNetworking cannot trust a private root CA on Linux")
        }
        let session = makeSession(connections: max(1, scenario.concurrency))
        defer { session.finishTasksAndInvalidate() }
        switch scenario {
        case .sequential, .concurrent8, .concurrent64:
            return await closedLoop(session, url: URL(string: environment.httpBase + "/small.txt")!)
        case .multiplexed64, .handshakes:
            return .skipped("TLS")
        case .download:
            return await download(session)
        case .upload:
            return await upload(session)
        case .decodeJSON:
            return await decodeLoop(session)
        case .coldStart:
            let result = await data(session, URLRequest(url: URL(string: environment.httpBase + "/small.txt")!))
            let elapsed = Double(nowNanoseconds() - request.spawnedAtNanoseconds) / 1e6
            if let failure = result.failure { return .failed(failure) }
            return Measurement(status: .ok, value: elapsed, count: 1, seconds: elapsed / 1000)
        case .cacheHit:
            return .skipped("URLCache on Linux stores nothing (docs/Caching.md)")
        case .inFlight1, .inFlight64, .inFlight1024, .inFlight4096:
            return .skipped(Scenario.sweepSkipNote)
        }
    }

    private func makeSession(connections: Int) -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.connectionProxyDictionary = [:]
        return URLSession(configuration: configuration)
    }

    private static func failure(_ response: URLResponse?, _ error: Error?) -> String? {
        if let error { return "\(error)" }
        let status = (response as? HTTPURLResponse)?.statusCode ?? -1
        return status == 200 || status == 204 ? nil : "HTTP status \(status)"
    }

    private func closedLoop(_ session: URLSession, url: URL) async -> Measurement {
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        await runCallbackLoop(concurrency: request.scenario.concurrency, tally: tally) { done in
            session.dataTask(with: url) { _, response, error in
                done(LoopResult(failure: Self.failure(response, error)))
            }.resume()
        }
        return tally.rate()
    }

    private func data(_ session: URLSession, _ request: URLRequest) async -> (data: Data?, failure: String?) {
        await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: (data, Self.failure(response, error)))
            }.resume()
        }
    }

    private func download(_ session: URLSession) async -> Measurement {
        let start = nowNanoseconds()
        let expected = environment.largeFileSize
        let outcome: (size: Int64, failure: String?) = await withCheckedContinuation { continuation in
            session.downloadTask(with: URL(string: environment.httpBase + "/large.bin")!) { file, response, error in
                // The file is removed when this handler returns.
                let size = file.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int64 }
                continuation.resume(returning: (size ?? -1, Self.failure(response, error)))
            }.resume()
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        if let failure = outcome.failure { return .failed(failure) }
        if outcome.size != expected { return .failed("file has \(outcome.size) of \(expected) bytes") }
        return Measurement(status: .ok, value: Double(expected) / seconds / 1e6, count: 1, seconds: seconds,
                           bytes: expected)
    }

    private func upload(_ session: URLSession) async -> Measurement {
        var upload = URLRequest(url: URL(string: environment.httpBase + "/discard")!)
        upload.httpMethod = "POST"
        upload.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let file = URL(fileURLWithPath: environment.uploadFile)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
        let start = nowNanoseconds()
        let failure: String? = await withCheckedContinuation { continuation in
            let box = TaskBox()
            // countOfBytesSent stays 0 in FoundationNetworking; checked when it is reported.
            box.task = session.uploadTask(with: upload, fromFile: file) { _, response, error in
                let sent = box.task?.countOfBytesSent ?? -1
                let failure = Self.failure(response, error)
                    ?? (sent > 0 && sent < size ? "sent \(sent) of \(size) bytes" : nil)
                continuation.resume(returning: failure)
            }
            box.task?.resume()
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        if let failure { return .failed(failure) }
        return Measurement(status: .ok, value: Double(size) / seconds / 1e6, count: 1, seconds: seconds, bytes: size)
    }

    private func decodeLoop(_ session: URLSession) async -> Measurement {
        let url = URL(string: environment.httpBase + "/" + (environment.jsonPath as NSString).lastPathComponent)!
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        await runCallbackLoop(concurrency: 1, tally: tally) { done in
            session.dataTask(with: url) { data, response, error in
                if let failure = Self.failure(response, error) { return done(.failed(failure)) }
                done(LoopResult(failure: Payload.decode(data ?? Data())))
            }.resume()
        }
        return tally.rate()
    }
}

/// Lets a completion handler read its own task (set before `resume()`, read after completion).
private final class TaskBox: @unchecked Sendable {
    var task: URLSessionUploadTask?
}
