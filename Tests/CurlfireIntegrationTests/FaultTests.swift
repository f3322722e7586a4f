import Curlfire
import Foundation
import XCTest

/// Every server fault maps to a typed error: no crash, no hang past the configured timeouts.
/// The table in docs/Reliability.md lists the same mapping.
final class FaultTests: XCTestCase {
    private func fetch(_ path: String, configure: (inout SessionConfiguration) -> Void = { _ in })
        async throws -> (DataResponse<Data>, TimeInterval) {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 2
        configuration.timeoutIntervalForResource = 6
        configure(&configuration)
        let session = SessionManager(configuration: configuration)
        let started = Date()
        let response = await session.request(try FaultServer.shared().url(path)).serializingData().response
        return (response, Date().timeIntervalSince(started))
    }

    private func assertTransport(_ path: String, _ expected: TransportErrorCode, within seconds: TimeInterval = 4,
                                 configure: (inout SessionConfiguration) -> Void = { _ in },
                                 file: StaticString = #filePath, line: UInt = #line) async throws {
        let (response, elapsed) = try await fetch(path, configure: configure)
        XCTAssertEqual(response.error?.transportErrorCode, expected, "\(path): \(response.debugDescription)",
                       file: file, line: line)
        XCTAssertLessThan(elapsed, seconds, "\(path) took \(elapsed) s", file: file, line: line)
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
        let (response, _) = try await fetch("/ok")
        XCTAssertEqual(response.value, Data("ok".utf8))
    }

    func testThatResetsAreConnectionLost() async throws {
        try await assertTransport("/reset-before-status", .connectionLost)
        try await assertTransport("/reset-after-headers", .connectionLost)
        try await assertTransport("/reset-mid-body", .connectionLost)
    }

    func testThatABodyShorterThanItsContentLengthIsConnectionLostAndKeepsTheBytes() async throws {
        let (response, _) = try await fetch("/short-body")
        XCTAssertEqual(response.error?.transportErrorCode, .connectionLost, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatMalformedRepliesAreBadServerResponse() async throws {
        try await assertTransport("/bad-status", .badServerResponse)
        try await assertTransport("/bad-header", .badServerResponse)
        try await assertTransport("/huge-headers", .badServerResponse)
    }

    func testThatBrokenChunkingIsTyped() async throws {
        let (response, _) = try await fetch("/bad-chunked")
        XCTAssertEqual(response.error?.transportErrorCode, .connectionLost, response.debugDescription)
    }

    func testThatSilenceAndTricklesHitTheConfiguredTimeouts() async throws {
        try await assertTransport("/never-answer", .timedOut, within: 4)
        try await assertTransport("/stall", .timedOut, within: 4)
        // One byte per second beats an idle timeout but not the resource timeout.
        try await assertTransport("/slowloris", .timedOut, within: 5) { $0.timeoutIntervalForResource = 3 }
    }

    func testThatARedirectLoopIsTooManyRedirects() async throws {
        try await assertTransport("/redirect-loop", .tooManyRedirects) { $0.maximumRedirects = 5 }
    }

    func testThatAnOddContinueIsConnectionLost() async throws {
        try await assertTransport("/continue-odd", .connectionLost)
    }

    func testThatATLSServerClosingAfterTheHandshakeIsConnectionLost() async throws {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: Live.servers().pkiFile("root-ca.pem"))]
        let session = SessionManager(configuration: configuration)
        let response = await session.request(try FaultServer.shared().https.absoluteString + "/").serializingData().response
        XCTAssertEqual(response.error?.transportErrorCode, .connectionLost, response.debugDescription)
    }
}
