import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Every server fault maps to a typed error: no crash, no hang past the configured timeouts.
/// The table in docs/Reliability.md lists the same mapping. Faults a `MockServer` serves as
/// scripts/fault-server.py did — same status, framing and timing: a short body, silence, a trickle,
/// a redirect loop — come from one in this process (`mock`, Support/MockEndpoints.swift); resets
/// (RST), malformed replies, the two unsolicited `100 Continue`s and the TLS port that closes after
/// the handshake stay on the Python fault server (`python`).
final class FaultTests: XCTestCase {
    private var server: MockServer?

    override func tearDown() {
        server?.shutdown()
        server = nil
        super.tearDown()
    }

    /// `path` on this test's `MockServer` (MockEndpoints.fault), started on first use.
    private func mock(_ path: String) throws -> String {
        if let server { return server.url(path).absoluteString }
        let started = try MockEndpoints.faultServer()
        server = started
        return started.url(path).absoluteString
    }

    /// `path` on scripts/fault-server.py.
    private func python(_ path: String) throws -> String {
        try FaultServer.shared().url(path)
    }

    private func fetch(_ url: String, configure: (inout SessionConfiguration) -> Void = { _ in })
        async throws -> (DataResponse<Data>, TimeInterval) {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 2
        configuration.timeoutIntervalForResource = 6
        configure(&configuration)
        let session = SessionManager(configuration: configuration)
        let started = Date()
        let response = await session.request(url).serializingData().response
        return (response, Date().timeIntervalSince(started))
    }

    private func assertTransport(_ url: String, _ expected: TransportErrorCode, within seconds: TimeInterval = 4,
                                 configure: (inout SessionConfiguration) -> Void = { _ in },
                                 file: StaticString = #filePath, line: UInt = #line) async throws {
        let (response, elapsed) = try await fetch(url, configure: configure)
        XCTAssertEqual(response.error?.transportErrorCode, expected, "\(url): \(response.debugDescription)",
                       file: file, line: line)
        XCTAssertLessThan(elapsed, seconds, "\(url) took \(elapsed) s", file: file, line: line)
        if case let .sessionTaskFailed(_, message)? = response.error {
            XCTAssertFalse(message.isEmpty, file: file, line: line)
        }
    }

    func testThatASubSecondTimeoutFiresOnTimeBeforeTheFirstByte() async throws {
        // httpbin answers after 1 s; a 0.3 s timeoutInterval must fail first, on time (libcurl's own
        // low-speed check counts whole seconds and would let the 1 s answer through, now and then).
        var slow = URLRequest(url: try XCTUnwrap(URL(string: try Live.httpbin("/delay/1"))))
        slow.timeoutInterval = 0.3
        for _ in 0..<3 {
            let started = Date()
            let response = await SessionManager().request(slow).serializingData().response
            let elapsed = Date().timeIntervalSince(started)
            XCTAssertEqual(response.error?.transportErrorCode, .timedOut, response.debugDescription)
            XCTAssertGreaterThanOrEqual(elapsed, 0.29)
            XCTAssertLessThan(elapsed, 0.9, "the 0.3 s timeout fired after \(elapsed) s")
            print("sub-second timeout: \(elapsed) s")
        }
    }

    func testThatTheControlEndpointSucceeds() async throws {
        let (response, _) = try await fetch(mock("/ok"))
        XCTAssertEqual(response.value, Data("ok".utf8))
    }

    func testThatResetsAreConnectionLost() async throws {
        try await assertTransport(python("/reset-before-status"), .connectionLost)
        try await assertTransport(python("/reset-after-headers"), .connectionLost)
        try await assertTransport(python("/reset-mid-body"), .connectionLost)
    }

    func testThatABodyShorterThanItsContentLengthIsConnectionLostAndKeepsTheBytes() async throws {
        let (response, _) = try await fetch(mock("/short-body"))
        XCTAssertEqual(response.error?.transportErrorCode, .connectionLost, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatMalformedRepliesAreBadServerResponse() async throws {
        try await assertTransport(python("/bad-status"), .badServerResponse)
        try await assertTransport(python("/bad-header"), .badServerResponse)
        try await assertTransport(python("/huge-headers"), .badServerResponse)
    }

    func testThatBrokenChunkingIsTyped() async throws {
        let (response, _) = try await fetch(python("/bad-chunked"))
        XCTAssertEqual(response.error?.transportErrorCode, .connectionLost, response.debugDescription)
    }

    func testThatSilenceAndTricklesHitTheConfiguredTimeouts() async throws {
        try await assertTransport(mock("/never-answer"), .timedOut, within: 4)
        try await assertTransport(mock("/stall"), .timedOut, within: 4)
        // One byte per second beats an idle timeout but not the resource timeout.
        try await assertTransport(mock("/slowloris"), .timedOut, within: 5) { $0.timeoutIntervalForResource = 3 }
    }

    func testThatARedirectLoopIsTooManyRedirects() async throws {
        try await assertTransport(mock("/redirect-loop"), .tooManyRedirects) { $0.maximumRedirects = 5 }
    }

    func testThatAnOddContinueIsConnectionLost() async throws {
        try await assertTransport(python("/continue-odd"), .connectionLost)
    }

    func testThatATLSServerClosingAfterTheHandshakeIsConnectionLost() async throws {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: Live.servers().pkiFile("root-ca.pem"))]
        let session = SessionManager(configuration: configuration)
        let response = await session.request(try FaultServer.shared().https.absoluteString + "/").serializingData().response
        XCTAssertEqual(response.error?.transportErrorCode, .connectionLost, response.debugDescription)
    }
}
