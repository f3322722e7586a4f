import Curlfire
import Foundation
import XCTest

/// Transport failures arrive as typed causes, never crashes or hangs.
final class TransportErrorTests: XCTestCase {
    private func transportCode(_ response: DataResponse<Data>) -> TransportErrorCode? {
        response.error?.transportErrorCode
    }

    func testThatATimeoutIsTimedOut() async throws {
        var request = URLRequest(url: URL(string: try Live.httpbin("/delay/3"))!)
        request.timeoutInterval = 1
        let started = Date()
        let response = await Curlfire.request(request).serializingData().response
        XCTAssertEqual(transportCode(response), .timedOut, "\(response.debugDescription)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.9)
    }

    func testThatASessionTimeoutIsTimedOut() async throws {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 1
        let session = SessionManager(configuration: configuration)
        let response = await session.request(try Live.httpbin("/delay/3")).serializingData().response
        XCTAssertEqual(transportCode(response), .timedOut, "\(response.debugDescription)")
    }

    func testThatAClosedPortIsCannotConnect() async throws {
        let port = try closedLoopbackPort()
        let response = await Curlfire.request("http://127.0.0.1:\(port)/").serializingData().response
        XCTAssertEqual(transportCode(response), .cannotConnect, "\(response.debugDescription)")
        guard case let .sessionTaskFailed(_, message)? = response.error else { return XCTFail() }
        XCTAssertFalse(message.isEmpty, "curl's message is kept")
    }

    func testThatAnUnresolvableHostIsCannotResolveHost() async throws {
        let response = await Curlfire.request("http://curlfire-test-no-such-host.invalid/").serializingData().response
        XCTAssertEqual(transportCode(response), .cannotResolveHost, "\(response.debugDescription)")
    }

    func testThatAMalformedURLIsInvalidURLWithoutACrash() async throws {
        for string in ["http://", "not a url at all", "ftp://example.test/file", ""] {
            let response = await Curlfire.request(string).serializingData().response
            guard case .invalidURL? = response.error else { return XCTFail("\(string): \(response.debugDescription)") }
            XCTAssertNil(response.response)
        }
    }

    func testThatTooManyRedirectsIsTyped() async throws {
        var configuration = SessionConfiguration()
        configuration.maximumRedirects = 2
        let session = SessionManager(configuration: configuration)
        let response = await session.request(try Live.httpbin("/redirect/5")).serializingData().response
        XCTAssertEqual(transportCode(response), .tooManyRedirects, "\(response.debugDescription)")
    }
}
