import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `stalled(at:for:)`: the server stops sending at a point, keeps the connection open and silent,
/// then closes it — the client meets its own timeouts.
final class MockServerStallTests: XCTestCase {
    func testThatAStallMidBodySendsHalfTheBodyThenNothingThenCloses() throws {
        let server = try MockServer()
        server.enqueue(MockResponse(body: Data("0123456789".utf8)).stalled(at: .midBody, for: 0.5))
        let connection = try RawConnection(port: server.port)
        let started = Date()
        connection.send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n")
        let reply = connection.read(until: "\u{0}")  // read until the server closes
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(reply.contains("\r\nContent-Length: 10\r\n"), reply)
        XCTAssertTrue(reply.contains("\r\nConnection: close\r\n"), reply)
        XCTAssertTrue(reply.hasSuffix("\r\n\r\n01234"), "half the body, no more: \(reply)")
        XCTAssertGreaterThanOrEqual(elapsed, 0.45, "closed only after the stall")
        XCTAssertLessThan(elapsed, 4)
    }

    func testThatAStallAfterTheHeadersMeetsTheClientsIdleTimeout() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(body: Data(count: 1000)).stalled(at: .afterHeaders))
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 0.5
        let started = Date()
        let response = await SessionManager(configuration: configuration).request(server.url("/head-only"))
            .serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        guard case .sessionTaskFailed(code: .timedOut, _)? = response.error else {
            return XCTFail("expected a timeout, got \(response.debugDescription)")
        }
        XCTAssertEqual(response.response?.statusCode, 200, "the head arrived")
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 3)
    }

    func testThatAStallMidBodyLeavesResumeDataForTheHalfThatArrived() async throws {
        let server = try MockServer()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        server.enqueue(MockResponse(headers: ["ETag": "\"stall-1\""], body: body).stalled(at: .midBody))
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 0.5
        let response = await SessionManager(configuration: configuration).download(server.url("/half"))
            .serializingDownloadedFileURL().response
        XCTAssertEqual(response.error?.transportErrorCode, .timedOut, response.debugDescription)
        let partial = try XCTUnwrap(response.temporaryURL, response.debugDescription)
        defer { try? FileManager.default.removeItem(at: partial) }
        XCTAssertEqual(try Data(contentsOf: partial), body.prefix(50_000))
        XCTAssertNotNil(response.resumeData)
    }

    func testThatShutdownEndsAnEndlessStallPromptly() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse.text("never").stalled(at: .beforeHeaders))
        async let response = SessionManager().request(server.url("/never")).serializingData().response
        XCTAssertNotNil(server.takeRequest(timeout: 5), "the request arrived")
        let started = Date()
        server.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "shutdown did not wait for the stall")
        let finished = await response
        XCTAssertEqual(finished.error?.transportErrorCode, .connectionLost, finished.debugDescription)
    }

    func testThatTheModifierIsRecordedAndCombinesWithOthers() {
        let response = MockResponse(body: Data(count: 10)).delayed(by: 0.1).stalled(at: .afterHeaders, for: -3)
        XCTAssertEqual(response.stallPoint, .afterHeaders)
        XCTAssertEqual(response.stallDuration, 0, "negative durations count as 0")
        XCTAssertEqual(response.delay, 0.1)
        XCTAssertNil(response.disconnectPoint)
        XCTAssertEqual(MockResponse().stalled(at: .midBody).stallDuration, .infinity)
        XCTAssertNil(MockResponse().stallPoint)
    }
}
