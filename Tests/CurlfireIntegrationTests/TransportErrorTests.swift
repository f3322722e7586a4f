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
        let port = try closedPort()
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

    /// A port on loopback with nothing listening: bind one, read its number, close it.
    private func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
