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
