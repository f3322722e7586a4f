import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import Synchronization

/// AsyncHTTPClient 1.37 through its async/await API (`execute` + `collect`) on the shared
/// singleton event loop group; `FileDownloadDelegate` for the download (AHC's own way to disk).
struct AHCClient {
    let request: MeasureRequest

    private var environment: BenchEnvironment { request.environment }

    func measure() async -> Measurement {
        let scenario = request.scenario
        let version: HTTPClient.Configuration.HTTPVersion = scenario == .multiplexed64 ? .automatic : .http1Only
        let client = makeClient(connections: max(1, scenario.concurrency), version: version)
        let result: Measurement
        switch scenario {
        case .sequential, .concurrent8, .concurrent64, .inFlight1, .inFlight64, .inFlight1024, .inFlight4096:
            result = await closedLoop(client, url: environment.httpBase + "/small.txt")
        case .multiplexed64:
            result = await closedLoop(client, url: environment.httpsBase + "/small.txt")
        case .handshakes:
            result = await closedLoop(client, url: environment.httpsBase + "/small.txt", closeConnection: true)
        case .download:
            result = await download(client)
        case .upload:
            result = await upload(client)
        case .decodeJSON:
            result = await decodeLoop(client)
        case .coldStart:
            result = await coldStart(client)
        case .cacheHit:
            result = .skipped("AsyncHTTPClient has no HTTP cache")
        }
        try? await client.shutdown()
        return result
    }

    private func makeClient(connections: Int, version: HTTPClient.Configuration.HTTPVersion) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(environment.rootCA)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                             concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.httpVersion = version
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    private static func status(_ response: HTTPClientResponse) -> String? {
        response.status == .ok || response.status == .noContent ? nil : "HTTP status \(response.status.code)"
    }

    private func closedLoop(_ client: HTTPClient, url: String, closeConnection: Bool = false) async -> Measurement {
        var template = HTTPClientRequest(url: url)
        if closeConnection { template.headers.add(name: "Connection", value: "close") }
        let prepared = template
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        await runAsyncLoop(concurrency: request.scenario.concurrency, tally: tally) {
            do {
                let response = try await client.execute(prepared, timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
                return LoopResult(failure: Self.status(response))
            } catch {
                return .failed("\(error)")
            }
        }
        return tally.rate()
    }

    private func download(_ client: HTTPClient) async -> Measurement {
        let path = environment.downloadDirectory + "/async-http-client.download"
        defer { unlink(path) }
        let start = nowNanoseconds()
        do {
            let delegate = try FileDownloadDelegate(path: path)
            let request = try HTTPClient.Request(url: environment.httpBase + "/large.bin")
            let progress = try await client.execute(request: request, delegate: delegate).futureResult.get()
            let seconds = Double(nowNanoseconds() - start) / 1e9
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? -1
            guard progress.receivedBytes == Int(environment.largeFileSize), size == environment.largeFileSize else {
                return .failed("received \(progress.receivedBytes), file has \(size) bytes")
            }
            return Measurement(status: .ok, value: Double(size) / seconds / 1e6, count: 1, seconds: seconds, bytes: size)
        } catch {
            return .failed("\(error)")
        }
    }

    private func upload(_ client: HTTPClient) async -> Measurement {
        let size = (try? FileManager.default.attributesOfItem(atPath: environment.uploadFile)[.size] as? Int64) ?? 0
        var upload = HTTPClientRequest(url: environment.httpBase + "/discard")
        upload.method = .POST
        upload.headers.add(name: "Content-Type", value: "application/octet-stream")
        let chunks = FileChunks(path: environment.uploadFile)
        upload.body = .stream(chunks, length: .known(size))
        let start = nowNanoseconds()
        do {
            let response = try await client.execute(upload, timeout: .seconds(120))
            _ = try await response.body.collect(upTo: 1 << 20)
            let seconds = Double(nowNanoseconds() - start) / 1e9
            if let failure = Self.status(response) { return .failed(failure) }
            // nginx's /discard answers 204 before it has read the body; AHC then treats the request
            // as done and stops streaming, which would not be an upload of the file.
            let read = chunks.progress.bytes
            if read < size {
                return .failed("stopped streaming after \(read) of \(size) bytes (server answered early)")
            }
            return Measurement(status: .ok, value: Double(size) / seconds / 1e6, count: 1, seconds: seconds, bytes: size)
        } catch {
            return .failed("\(error)")
        }
    }

    private func decodeLoop(_ client: HTTPClient) async -> Measurement {
        let url = environment.httpBase + "/" + (environment.jsonPath as NSString).lastPathComponent
        let tally = Tally(window: Window(warmup: request.warmupSeconds, seconds: request.seconds))
        await runAsyncLoop(concurrency: 1, tally: tally) {
            do {
                let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 16 << 20)
                if let failure = Self.status(response) { return .failed(failure) }
                // NIOFoundationCompat decodes straight from the ByteBuffer.
                let items = try JSONDecoder().decode([Item].self, from: body)
                return items.count == Payload.itemCount ? .succeeded : .failed("decoded \(items.count) items")
            } catch {
                return .failed("\(error)")
            }
        }
        return tally.rate()
    }

    private func coldStart(_ client: HTTPClient) async -> Measurement {
        do {
            let response = try await client.execute(HTTPClientRequest(url: environment.httpBase + "/small.txt"),
                                                    timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            let elapsed = Double(nowNanoseconds() - request.spawnedAtNanoseconds) / 1e6
            if let failure = Self.status(response) { return .failed(failure) }
            return Measurement(status: .ok, value: elapsed, count: 1, seconds: elapsed / 1000)
        } catch {
            return .failed("\(error)")
        }
    }
}

/// A file read in 1 MiB `ByteBuffer`s with read(2), for AHC's streamed request body.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    /// Bytes handed to AHC so far.
    let progress = ReadProgress()

    final class ReadProgress: Sendable {
        private let count = Atomic<Int64>(0)
        var bytes: Int64 { count.load(ordering: .relaxed) }
        func add(_ bytes: Int) { count.add(Int64(bytes), ordering: .relaxed) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let descriptor: Int32
        let progress: ReadProgress
        var finished = false

        mutating func next() async throws -> ByteBuffer? {
            guard !finished else { return nil }
            var buffer = ByteBufferAllocator().buffer(capacity: 1 << 20)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 1 << 20) { raw in
                let n = read(descriptor, raw.baseAddress, raw.count)
                if n < 0 { throw IOError(errnoCode: errno, reason: "read") }
                return n
            }
            if count == 0 {
                finished = true
                close(descriptor)
                return nil
            }
            progress.add(count)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(descriptor: open(path, O_RDONLY | O_CLOEXEC), progress: progress)
    }
}
