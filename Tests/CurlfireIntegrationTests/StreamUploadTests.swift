import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Uploads whose body is produced while it is sent (issue 14 point 4): an `InputStream` and an
/// `AsyncSequence` of `Data`, against a `/digest` (which answers the body's length and CRC-32 and
/// whether it came chunked) and nginx's `/discard`. `/digest` is a `MockServer` in this process
/// (MockEndpoints.digest), except for the 256 MiB upload that measures this process's peak memory:
/// a MockServer keeps the whole request body in memory here, so that one goes to
/// scripts/fault-server.py's `/digest`, which hashes the body as it arrives.
final class StreamUploadTests: XCTestCase {
    private typealias Digest = MockEndpoints.Digest
    private struct MyError: Error, Equatable { let code: Int }

    private var server: MockServer?

    override func tearDown() {
        server?.shutdown()
        server = nil
        super.tearDown()
    }

    /// `path` on this test's `MockServer`, started on first use: `/digest` and `/flaky` (any other path 404).
    private func mock(_ path: String) throws -> String {
        if let server { return server.url(path).absoluteString }
        let flaky = FlakyEndpoint()
        let started = try MockServer { request in
            switch request.pathWithoutQuery {
            case "/digest": MockEndpoints.digest(request)
            case "/flaky": flaky.respond(to: request)
            default: MockResponse(statusCode: 404)
            }
        }
        server = started
        return started.url(path).absoluteString
    }

    private func digestURL() throws -> String { try mock("/digest") }

    private func digest(_ response: DataResponse<Data>, file: StaticString = #filePath, line: UInt = #line) -> Digest? {
        guard let data = response.value, let digest = try? JSONDecoder().decode(Digest.self, from: data) else {
            XCTFail("expected a digest, got \(response.debugDescription)", file: file, line: line)
            return nil
        }
        return digest
    }

    // MARK: - InputStream

    func testThatAnInputStreamUploadArrivesExactlyAndChunked() async throws {
        let payload = Pattern.data(count: 3 << 20 | 12_345)
        let response = await Curlfire.upload(InputStream(data: payload), to: try digestURL())
            .validate().serializingData().response
        let digest = try XCTUnwrap(digest(response))
        XCTAssertEqual(digest.length, Int64(payload.count))
        XCTAssertEqual(digest.crc32, CRC32.of(payload))
        XCTAssertTrue(digest.chunked, "no length given: chunked transfer encoding")
    }

    func testThatAnInputStreamWithAContentLengthHeaderIsSentWithThatLength() async throws {
        let payload = Pattern.data(count: 200_000)
        let response = await Curlfire.upload(InputStream(data: payload), to: try digestURL(), method: .put,
                                             headers: ["Content-Length": "\(payload.count)"])
            .validate().serializingData().response
        let digest = try XCTUnwrap(digest(response))
        XCTAssertEqual(digest.length, 200_000)
        XCTAssertEqual(digest.crc32, CRC32.of(payload))
        XCTAssertFalse(digest.chunked)
    }

    func testThatAFailingInputStreamIsATypedErrorWithTheStreamsError() async throws {
        let stream = FailingInputStream(goodReads: 40, error: MyError(code: 7))
        let response = await Curlfire.upload(stream, to: try digestURL()).serializingData().response
        guard case .bodyStreamFailed(.inputStreamReadFailed)? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
        XCTAssertEqual(response.error?.underlyingError as? MyError, MyError(code: 7))
    }

    func testThatAnInputStreamToADeadServerIsATypedErrorAndClosesTheStream() async throws {
        let stream = InputStream(data: Pattern.data(count: 10_000))
        let response = await Curlfire.upload(stream, to: "http://127.0.0.1:1/digest").serializingData().response
        XCTAssertEqual(response.error?.transportErrorCode, .cannotConnect, response.debugDescription)
    }

    // MARK: - AsyncSequence

    func testThatAnAsyncSequenceUploadArrivesExactly() async throws {
        let chunks = (0..<97).map { Pattern.data(count: 1_000 + $0 * 1_531, seed: $0) }
        let all = chunks.reduce(Data(), +)
        let response = await Curlfire.upload(Chunks(chunks), to: try digestURL()).validate().serializingData().response
        let digest = try XCTUnwrap(digest(response))
        XCTAssertEqual(digest.length, Int64(all.count))
        XCTAssertEqual(digest.crc32, CRC32.of(all))
        XCTAssertTrue(digest.chunked)
    }

    func testThatASlowProducerPausesTheTransferAndEveryByteStillArrives() async throws {
        // Each chunk comes 10 ms after the last: the read callback finds the buffer empty, pauses
        // the transfer, and the next chunk continues it through the engine.
        let chunks = (0..<20).map { Pattern.data(count: 10_000, seed: $0) }
        let response = await Curlfire.upload(Slow(chunks: chunks), to: try digestURL()).validate().serializingData().response
        let digest = try XCTUnwrap(digest(response))
        XCTAssertEqual(digest.length, 200_000)
        XCTAssertEqual(digest.crc32, CRC32.of(chunks.reduce(Data(), +)))
    }

    func testThatAnAsyncSequenceWithALengthIsSentWithContentLength() async throws {
        let chunks = (0..<5).map { Pattern.data(count: 70_000, seed: $0) }
        let response = await Curlfire.upload(Chunks(chunks), length: 350_000, to: try digestURL())
            .validate().serializingData().response
        let digest = try XCTUnwrap(digest(response))
        XCTAssertEqual(digest.length, 350_000)
        XCTAssertEqual(digest.crc32, CRC32.of(chunks.reduce(Data(), +)))
        XCTAssertFalse(digest.chunked)
    }

    func testThatASequenceShorterThanItsLengthIsATypedError() async throws {
        let response = await Curlfire.upload(Chunks([Data(count: 1_000)]), length: 5_000, to: try digestURL())
            .serializingData().response
        guard case .bodyStreamFailed(.lengthMismatch(5_000, 1_000))? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
    }

    func testThatAnErrorMidBodyAbortsTheUploadWithTheProducersError() async throws {
        let body = Throwing(chunks: 32, chunkSize: 64 << 10, error: MyError(code: 42))
        let response = await Curlfire.upload(body, to: try digestURL()).serializingData().response
        guard case .bodyStreamFailed(.producerFailed)? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
        XCTAssertEqual(response.error?.underlyingError as? MyError, MyError(code: 42))
    }

    func testThatAnAsyncSequenceToADeadServerIsATypedErrorAndStopsTheProducer() async throws {
        let probe = Endless.Probe()
        let response = await Curlfire.upload(Endless(probe: probe), to: "http://127.0.0.1:1/digest")
            .serializingData().response
        XCTAssertEqual(response.error?.transportErrorCode, .cannotConnect, response.debugDescription)
        await probe.waitUntilStopped()
    }

    func testThatCancellingMidStreamEndsPromptlyAndStopsTheProducer() async throws {
        let probe = Endless.Probe()
        let sent = ResponseWaiter<Void>()
        let request = Curlfire.upload(Endless(probe: probe), to: try digestURL())
            .uploadProgress { if $0.completedUnitCount > 4 << 20, !sent.isFulfilled { sent.fulfil(()) } }
        let task = Task { await request.serializingData().response }
        await sent.value
        let cancelled = Date()
        request.cancel()
        let response = await task.value
        let elapsed = Date().timeIntervalSince(cancelled)
        guard case .explicitlyCancelled? = response.error else { return XCTFail("\(response.debugDescription)") }
        XCTAssertLessThan(elapsed, 1, "cancellation took \(elapsed) s")
        await probe.waitUntilStopped()
    }

    func testThatARetryOfAStreamedBodyIsRefusedWithATypedError() async throws {
        let key = UUID().uuidString
        let url = try mock("/flaky?key=\(key)&fail=1")
        let response = await Curlfire.upload(Chunks([Data("payload".utf8)]), to: url)
            .retry(using: AlwaysRetry()).serializingData().response
        guard case let .requestRetryFailed(retryError, originalError)? = response.error,
              case .bodyStreamFailed(.notReplayable)? = retryError as? CurlfireError else {
            return XCTFail("\(response.debugDescription)")
        }
        XCTAssertEqual((originalError as? CurlfireError)?.responseCode, 503)
    }

    func testThatA307ThatMustResendAStreamedBodyIsATypedError() async throws {
        let target = try digestURL().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let url = try Live.httpbin("/redirect-to?url=\(target)&status_code=307")
        let response = await Curlfire.upload(Chunks([Data("payload".utf8)]), to: url).serializingData().response
        guard case .bodyStreamFailed(.notReplayable)? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
    }

    // MARK: - Memory and throughput

    func testThatA256MiBStreamUploadsWithFlatMemory() async throws {
        let total = 256 << 20
        let chunkSize = 64 << 10
        let expected = CRC32.ofGenerated(chunks: total / chunkSize, chunkSize: chunkSize)
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let started = Date()
        // fault-server.py's /digest, not the MockServer's: that would hold the 256 MiB in this process.
        let digestURL = try FaultServer.shared().url("/digest")
        let response = await Curlfire.upload(Generated(chunks: total / chunkSize, chunkSize: chunkSize), to: digestURL)
            .validate().serializingData().response
        let seconds = Date().timeIntervalSince(started)
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        let digest = try XCTUnwrap(digest(response))
        XCTAssertEqual(digest.length, Int64(total))
        XCTAssertEqual(digest.crc32, expected)
        XCTAssertLessThan(growth, 24 * 1024, "peak memory grew by \(growth) KiB for a 256 MiB streamed upload")
        print(String(format: "256 MiB AsyncSequence upload to /digest: peak RSS growth %d KiB, %.2f s, %.0f MiB/s",
                     growth, seconds, Double(total >> 20) / seconds))
    }

    func testThatA256MiBInputStreamUploadsToNginxWithFlatMemory() async throws {
        let sink = try XCTUnwrap(Live.servers().nginxHTTP).appendingPathComponent("discard")
        let total = 256 << 20
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let started = Date()
        let response = await Curlfire.upload(ZeroInputStream(count: total), to: sink, method: .put)
            .validate().serializingData().response
        let seconds = Date().timeIntervalSince(started)
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        XCTAssertEqual(response.response?.statusCode, 204, response.debugDescription)
        XCTAssertGreaterThanOrEqual(response.metrics?.bytesSent ?? 0, Int64(total))
        XCTAssertLessThan(growth, 24 * 1024, "peak memory grew by \(growth) KiB for a 256 MiB InputStream upload")
        print(String(format: "256 MiB InputStream upload to nginx: peak RSS growth %d KiB, %.2f s, %.0f MiB/s",
                     growth, seconds, Double(total >> 20) / seconds))
    }
}

// MARK: - Bodies

/// Deterministic bytes.
enum Pattern {
    static func data(count: Int, seed: Int = 0) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 17 &+ 7) })
    }
}

/// A fixed list of chunks as an `AsyncSequence`.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]
    init(_ chunks: [Data]) { self.chunks = chunks }

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Data>
        mutating func next() async throws -> Data? { rest.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}

/// `chunks` chunks of `chunkSize` bytes, each made when asked for (chunk i: a 1 MiB-periodic pattern
/// with its index in the first 8 bytes), so the whole body never exists in memory.
struct Generated: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: Int
    let chunkSize: Int

    static func chunk(_ index: Int, size: Int) -> Data {
        var data = Data(repeating: UInt8(truncatingIfNeeded: index &* 13 &+ 1), count: size)
        withUnsafeBytes(of: UInt64(index).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
        return data
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: Int
        let chunkSize: Int
        var index = 0
        mutating func next() async throws -> Data? {
            guard index < chunks else { return nil }
            defer { index += 1 }
            return Generated.chunk(index, size: chunkSize)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks, chunkSize: chunkSize) }
}

/// The chunks, each 10 ms after the last (a producer slower than the network).
struct Slow: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Data>
        mutating func next() async throws -> Data? {
            guard let chunk = rest.popFirst() else { return nil }
            try await Task.sleep(for: .milliseconds(10))
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}

/// `chunks` chunks, then throws `error`.
struct Throwing: AsyncSequence, Sendable {
    typealias Element = Data
    let chunks: Int
    let chunkSize: Int
    let error: any Error & Sendable

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: Throwing
        var index = 0
        mutating func next() async throws -> Data? {
            guard index < source.chunks else { throw source.error }
            index += 1
            return Data(repeating: 0x5A, count: source.chunkSize)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// 64 KiB chunks forever; its probe learns when the iteration stopped (the iterator was released).
struct Endless: AsyncSequence, Sendable {
    typealias Element = Data
    let probe: Probe

    /// Fulfilled when an iterator is released.
    final class Probe: Sendable {
        let stopped = ResponseWaiter<Void>()
        func waitUntilStopped() async { await stopped.value }
    }

    final class Token {
        let probe: Probe
        init(probe: Probe) { self.probe = probe }
        deinit { probe.stopped.fulfil(()) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let token: Token
        mutating func next() async throws -> Data? { Data(repeating: 0x42, count: 64 << 10) }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(token: Token(probe: probe)) }
}

/// An `InputStream` of `count` zero bytes, made as they are read.
final class ZeroInputStream: InputStream {
    private var remaining: Int
    private var status: Stream.Status = .notOpen

    init(count: Int) {
        remaining = count
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var hasBytesAvailable: Bool { remaining > 0 }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let count = min(len, remaining)
        buffer.initialize(repeating: 0, count: count)
        remaining -= count
        if remaining == 0 { status = .atEnd }
        return count
    }
}

/// An `InputStream` that gives `goodReads` reads of 4 KiB, then fails with `error`.
final class FailingInputStream: InputStream {
    private var reads = 0
    private let goodReads: Int
    private let failure: any Error
    private var status: Stream.Status = .notOpen

    init(goodReads: Int, error: any Error) {
        self.goodReads = goodReads
        failure = error
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: Error? { status == .error ? failure : nil }
    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard reads < goodReads else {
            status = .error
            return -1
        }
        reads += 1
        let count = min(len, 4_096)
        buffer.initialize(repeating: 0x33, count: count)
        return count
    }
}

/// Retries every failure.
struct AlwaysRetry: RequestRetrier {
    func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        completion(true, 0)
    }
}

/// CRC-32 (IEEE, zlib's) to check bodies against the server's.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    static func update(_ crc: UInt32, _ data: Data) -> UInt32 {
        var crc = ~crc
        table.withUnsafeBufferPointer { table in
            data.withUnsafeBytes { bytes in
                for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
        }
        return ~crc
    }

    static func of(_ data: Data) -> UInt32 { update(0, data) }

    static func ofGenerated(chunks: Int, chunkSize: Int) -> UInt32 {
        (0..<chunks).reduce(UInt32(0)) { update($0, Generated.chunk($1, size: chunkSize)) }
    }
}
