import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Over HTTPS, the same scripts as over HTTP: error statuses, slow and throttled responses, and
/// what was sent recorded — the TLS layer must not change what a test sees.
final class MockServerTLSDeliveryTests: XCTestCase {
    /// 15 under `make sanitize-leaks` (`CURLFIRE_SANITIZER=leaks`: whole-stack unwinding on every
    /// allocation, where a TLS handshake can take seconds), 3 under another sanitizer, 1 otherwise.
    /// The pace bounds scale by it.
    private static let slowdown: Double = {
        switch ProcessInfo.processInfo.environment["CURLFIRE_SANITIZER"] ?? "" {
        case "": 1
        case "leaks": 15
        default: 3
        }
    }()

    private func session(for server: MockServer, timeout: TimeInterval = 10) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try XCTUnwrap(server.certificate)]
        configuration.timeoutIntervalForRequest = timeout
        return SessionManager(configuration: configuration)
    }

    func testThatAnErrorStatusOverHTTPSReachesValidationAndTheRequestIsRecorded() async throws {
        let server = try MockServer(tls: .selfSigned())
        server.enqueue(.json(["error": "quota"], statusCode: 429))
        let response = try await session(for: server)
            .request(server.url("/items?page=2"), method: .post, parameters: ["name": "a"], encoding: JSONEncoding.default,
                     headers: ["X-Trace": "t-1"])
            .validate().serializingData().response

        guard case .responseValidationFailed(reason: .unacceptableStatusCode(code: 429))? = response.error else {
            return XCTFail("expected a 429 validation failure, got \(response.debugDescription)")
        }
        XCTAssertEqual(response.data.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) },
                       ["error": "quota"])
        let request = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/items?page=2")
        XCTAssertEqual(request.headers["x-trace"], "t-1")
        XCTAssertEqual(try JSONDecoder().decode([String: String].self, from: request.body), ["name": "a"])
    }

    func testThatADelayedResponseOverHTTPSTimesOutAShortRequestTimeout() async throws {
        let server = try MockServer(tls: .selfSigned())
        server.enqueue(MockResponse.text("late").delayed(by: 2 * Self.slowdown))
        let started = Date()
        let response = try await session(for: server, timeout: 0.3).request(server.url("/slow")).serializingData().response
        guard case .sessionTaskFailed(code: .timedOut, _)? = response.error else {
            return XCTFail("expected a timeout, got \(response.debugDescription)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.8 * Self.slowdown,
                          "the request gave up before the response came")
    }

    func testThatAThrottledChunkedBodyOverHTTPSArrivesWholeAtItsPace() async throws {
        let server = try MockServer(tls: .selfSigned())
        let body = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.enqueue(MockResponse(body: body).throttled(bytesPerSecond: 80_000).chunked())  // about 0.5 s
        let started = Date()
        let response = try await session(for: server).request(server.url("/drip")).serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.value, body)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Transfer-Encoding"), "chunked")
        XCTAssertGreaterThanOrEqual(elapsed, 0.35)
        XCTAssertLessThan(elapsed, 3 * Self.slowdown)
    }
}
