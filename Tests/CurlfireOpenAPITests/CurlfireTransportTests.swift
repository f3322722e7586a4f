#if OpenAPI
import Curlfire
import CurlfireOpenAPI
import Foundation
import FoundationNetworking
import HTTPTypes
import OpenAPIRuntime
import XCTest

/// The client generated from openapi.yaml (Generated/), over `CurlfireTransport`, against httpbin.
final class CurlfireTransportTests: XCTestCase {
    private func client(_ session: SessionManager = SessionManager()) throws -> Client {
        Client(serverURL: try Live.servers().httpbin, transport: CurlfireTransport(session: session))
    }

    func testThatAGETSendsItsQueryAndHeaderAndDecodesTheResponse() async throws {
        // When
        let output = try await client().getAnything(query: .init(q: "swift & more"), headers: .init(xTrace: "42"))
        // Then
        let echo = try output.ok.body.json
        XCTAssertEqual(echo.args.additionalProperties["q"], "swift & more")
        XCTAssertEqual(echo.headers.additionalProperties["X-Trace"], "42")
        XCTAssertEqual(echo.headers.additionalProperties["Accept"], "application/json")
        XCTAssertTrue(echo.url.hasSuffix("/get?q=swift%20%26%20more"), echo.url)
    }

    func testThatAPOSTSendsItsJSONBody() async throws {
        // When
        let output = try await client().postJSON(body: .json(.init(name: "curlfire", count: 3)))
        // Then
        let echo = try output.ok.body.json
        XCTAssertEqual(echo.json?.name, "curlfire")
        XCTAssertEqual(echo.json?.count, 3)
        XCTAssertEqual(echo.headers.additionalProperties["Content-Type"], "application/json; charset=utf-8")
    }

    func testThatStatusesAreResponsesNotErrors() async throws {
        // When
        let ok = try await client().getStatus(path: .init(code: 200))
        let teapot = try await client().getStatus(path: .init(code: 418))
        // Then
        XCTAssertNoThrow(try ok.ok)
        guard case let .default(statusCode, _) = teapot else { return XCTFail("expected the default response, got \(teapot)") }
        XCTAssertEqual(statusCode, 418)
    }

    func testThatATransportFailureIsAClientErrorWithTheCurlfireErrorUnderneath() async throws {
        // Given: a port nothing listens on
        let client = Client(serverURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")), transport: CurlfireTransport())
        // When
        do {
            _ = try await client.getStatus(path: .init(code: 200))
            XCTFail("expected an error")
        } catch let error as ClientError {
            // Then
            XCTAssertEqual(error.operationID, "getStatus")
            guard case let .sessionTaskFailed(code, _)? = error.underlyingError as? CurlfireError else {
                return XCTFail("expected a CurlfireError underneath, got \(error.underlyingError)")
            }
            XCTAssertEqual(code, .cannotConnect)
        }
    }

    func testThatTheSessionsRetriesAndEventMonitorsApply() async throws {
        // Given: a session retrying 503 twice, watched by a monitor
        let retries = Recorder<Int>()
        let monitor = ClosureEventMonitor()
        monitor.requestIsRetrying = { retries.append($0.retryCount) }
        let session = SessionManager(eventMonitors: [monitor])
        session.retrier = RetryPolicy(retryLimit: 2, exponentialBackoffScale: 0.01)
        // When
        let output = try await client(session).getStatus(path: .init(code: 503))
        monitor.queue.sync {}
        // Then
        guard case let .default(statusCode, _) = output else { return XCTFail("expected the default response, got \(output)") }
        XCTAssertEqual(statusCode, 503)
        XCTAssertEqual(retries.all.count, 2)
    }

    func testThatTheSessionsTrustPolicyApplies() async throws {
        // Given: httpbin over HTTPS with the test PKI's chain
        let servers = try Live.servers()
        let server = try servers.https("valid")
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        let trusting = Client(serverURL: server, transport: CurlfireTransport(session: SessionManager(configuration: configuration)))
        let strict = Client(serverURL: server, transport: CurlfireTransport(session: SessionManager()))
        // When / Then: the session trusting the private root gets through, the default one does not
        let trusted = try await trusting.getStatus(path: .init(code: 200))
        XCTAssertNoThrow(try trusted.ok)
        do {
            _ = try await strict.getStatus(path: .init(code: 200))
            XCTFail("expected the default trust to reject the private CA")
        } catch let error as ClientError {
            XCTAssertNotNil(error.underlyingError as? CurlfireError, "\(error.underlyingError)")
        }
    }

    func testThatA64MiBBodyStreamsInChunksWithFlatMemory() async throws {
        // Given: nginx's large file, through the transport directly
        let servers = try Live.servers()
        guard let base = servers.nginxHTTP, let size = servers.largeFileSize else { throw XCTSkip("nginx is not running here") }
        let transport = CurlfireTransport()
        let baseline = try statusKilobytes("VmRSS")
        try XCTSkipUnless(resetPeakMemory(), "/proc/self/clear_refs is not writable here")
        // When
        let (response, body) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/large.bin"),
                                                        body: nil, baseURL: base, operationID: "large")
        var received = 0
        var chunks = 0
        var largest = 0
        for try await chunk in try XCTUnwrap(body) {
            received += chunk.count
            chunks += 1
            largest = max(largest, chunk.count)
        }
        let growth = try statusKilobytes("VmHWM") - baseline
        // Then
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(body?.length, .known(Int64(size)))
        XCTAssertEqual(received, size)
        XCTAssertGreaterThan(chunks, 100)
        XCTAssertLessThanOrEqual(largest, 64 << 10)
        XCTAssertLessThan(growth, 24 * 1024, "peak RSS grew by \(growth) KiB for a 64 MiB body")
    }

    func testThatTheResponseIsHandedOverBeforeItsBodyHasArrived() async throws {
        // Given: httpbin's drip, five bytes spread over two seconds, its head sent at once
        let base = try Live.servers().httpbin
        let transport = CurlfireTransport(session: SessionManager())
        let start = Date()
        // When
        let (response, body) = try await transport.send(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/drip?numbytes=5&duration=2&delay=0&code=200"),
            body: nil, baseURL: base, operationID: "drip")
        let handedOver = Date().timeIntervalSince(start)
        var received = 0
        for try await chunk in try XCTUnwrap(body) { received += chunk.count }
        let finished = Date().timeIntervalSince(start)
        // Then: the response came with the first byte, the body kept flowing after it
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(received, 5)
        XCTAssertLessThan(handedOver, 1.2, "send returned only after \(handedOver) s")
        XCTAssertGreaterThan(finished - handedOver, 0.8, "the body had already arrived when send returned")
    }

    func testThatDroppingAStreamedBodyUnreadCancelsTheTransfer() async throws {
        // Given: a body that would take ten seconds to drip, watched by a monitor
        let base = try Live.servers().httpbin
        let completed = expectation(description: "the transfer ended")
        let monitor = ClosureEventMonitor()
        let errors = Recorder<String>()
        monitor.requestDidCompleteAttempt = { _, error in
            errors.append(error.map { "\($0)" } ?? "none")
            completed.fulfill()
        }
        let transport = CurlfireTransport(session: SessionManager(eventMonitors: [monitor]))
        let start = Date()
        // When: the body is dropped after the first byte
        do {
            let (_, body) = try await transport.send(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/drip?numbytes=10&duration=10&delay=0"),
                body: nil, baseURL: base, operationID: "drip")
            XCTAssertNotNil(body)
        }
        // Then: the transfer is cancelled, long before the ten seconds
        await fulfillment(of: [completed], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(errors.all.count, 1)
        XCTAssertTrue(errors.all.first?.contains("ancel") ?? false, "\(errors.all)")
    }

    // MARK: - Streamed request bodies

    /// `count` chunks of `size` bytes (byte 0: the chunk's index; byte i > 0: i mod 251), made as they are asked for.
    private struct Chunks: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        let count: Int
        let size: Int
        var failure: (any Error & Sendable)?

        struct AsyncIterator: AsyncIteratorProtocol {
            let source: Chunks
            var index = 0
            mutating func next() async throws -> HTTPBody.ByteChunk? {
                guard index < source.count else {
                    if let failure = source.failure { throw failure }
                    return nil
                }
                defer { index += 1 }
                var chunk = Chunks.block(source.size)
                chunk[0] = UInt8(truncatingIfNeeded: index)
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }

        /// Byte i: i mod 251 (made once per size: a debug build's per-byte loop would be the bottleneck).
        static func block(_ size: Int) -> HTTPBody.ByteChunk { size == 64 << 10 ? large : ArraySlice((0..<size).map { UInt8($0 % 251) }) }
        private static let large = ArraySlice((0..<(64 << 10)).map { UInt8($0 % 251) })
    }

    func testThatASingleUseRequestBodyOfUnknownLengthStreamsAndArrivesExactly() async throws {
        let chunks = Chunks(count: 7, size: 1_000)
        let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
        let (response, responseBody) = try await CurlfireTransport().send(
            HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/anything",
                        headerFields: [.contentType: "application/octet-stream"]),
            body: body, baseURL: try Live.servers().httpbin, operationID: "anything")
        XCTAssertEqual(response.status, .ok)
        let data = try await Data(collecting: try XCTUnwrap(responseBody), upTo: 1 << 20)
        let echo = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let expected = (0..<7).flatMap { index in [UInt8(index)] + (1..<1_000).map { UInt8($0 % 251) } }
        // httpbin echoes a non-UTF-8 body as a data: URL.
        let sent = try XCTUnwrap(echo["data"] as? String)
        let base64 = try XCTUnwrap(sent.components(separatedBy: "base64,").last)
        XCTAssertEqual(Data(base64Encoded: base64), Data(expected))
        XCTAssertEqual((echo["headers"] as? [String: Any])?["Transfer-Encoding"] as? String, "chunked")
    }

    func testThatARequestBodyThatThrowsFailsTheTransferWithItsError() async throws {
        struct BodyBroke: Error, Equatable {}
        let body = HTTPBody(Chunks(count: 3, size: 10_000, failure: BodyBroke()), length: .unknown, iterationBehavior: .single)
        do {
            _ = try await CurlfireTransport().send(HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/anything"),
                                                   body: body, baseURL: try Live.servers().httpbin, operationID: "anything")
            XCTFail("the transfer should fail")
        } catch let error as CurlfireError {
            guard case .bodyStreamFailed(.producerFailed) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.underlyingError is BodyBroke)
        }
    }

    func testThatA256MiBRequestBodyStreamsWithFlatMemory() async throws {
        // Given: nginx's upload sink; 4096 chunks of 64 KiB, never all in memory
        let servers = try Live.servers()
        guard let base = servers.nginxHTTP else { throw XCTSkip("nginx is not running here") }
        let size: Int64 = 256 << 20
        let body = HTTPBody(Chunks(count: 4_096, size: 64 << 10), length: .known(size), iterationBehavior: .single)
        let baseline = try statusKilobytes("VmRSS")
        try XCTSkipUnless(resetPeakMemory(), "/proc/self/clear_refs is not writable here")
        let started = Date()
        // When
        let (response, _) = try await CurlfireTransport().send(
            HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/discard"),
            body: body, baseURL: base, operationID: "discard")
        let seconds = Date().timeIntervalSince(started)
        let growth = try statusKilobytes("VmHWM") - baseline
        // Then
        XCTAssertEqual(response.status.code, 204)
        XCTAssertLessThan(growth, 24 * 1024, "peak RSS grew by \(growth) KiB for a 256 MiB request body")
        print(String(format: "OpenAPI transport, 256 MiB request body to nginx: peak RSS growth %d KiB, %.2f s, %.0f MiB/s",
                     growth, seconds, 256 / seconds))
    }

    // MARK: - Memory (as DownloadLargeTests measures it)

    private func resetPeakMemory() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private func statusKilobytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            if let value = line.split(separator: " ").compactMap({ Int($0) }).first { return value }
        }
        throw CocoaError(.fileReadCorruptFile)
    }
}
#endif
