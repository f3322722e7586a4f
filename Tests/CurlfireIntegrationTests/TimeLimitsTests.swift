import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// A request's own time limits against real peers (issue 26, point 1): its `timeoutInterval` is
/// always meant (60 included), its deadline cuts the whole request short, its connect timeout
/// bounds only connecting; `.http2` asks for HTTP/2 where `.automatic` does not.
final class TimeLimitsTests: XCTestCase {
    private func session(idle: TimeInterval, version: SessionConfiguration.HTTPVersion = .automatic) -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = idle
        configuration.httpVersion = version
        return SessionManager(configuration: configuration)
    }

    func testThatARequestTimeoutOfExactly60OutlivesAShorterSessionTimeout() async throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: try Live.httpbin("/delay/2"))))
        request.timeoutInterval = 60
        let response = await session(idle: 1).request(request).serializingData().response
        XCTAssertNil(response.error, "the request's 60 s, not the session's 1 s: \(response.debugDescription)")
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatTheDeadlineEndsARequestTheIdleTimeoutWouldLetRun() async throws {
        let started = Date()
        let response = await session(idle: 30).request(try Live.httpbin("/delay/4")).deadline(1)
            .serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.error?.transportErrorCode, .timedOut, "\(response.debugDescription)")
        XCTAssertGreaterThan(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 3.5, "the 1 s deadline, not the 4 s answer nor the 30 s idle timeout")
    }

    func testThatTheConnectTimeoutBoundsAHandshakeThatNeverAnswers() async throws {
        // A real listening socket that is never accepted from: the kernel completes TCP, nobody answers TLS.
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let started = Date()
        let response = await session(idle: 30).request("https://127.0.0.1:\(port)/").connectTimeout(0.5)
            .serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.error?.transportErrorCode, .timedOut, "\(response.debugDescription)")
        XCTAssertLessThan(elapsed, 5, "the 0.5 s connect timeout, not the 30 s idle timeout")
    }

    func testThatAnInvalidLimitIsATypedErrorAndNothingIsSent() async throws {
        for request in [session(idle: 5).request(try Live.httpbin("/get")).deadline(-1),
                        session(idle: 5).request(try Live.httpbin("/get")).connectTimeout(.nan)] {
            let response = await request.serializingData().response
            guard case .invalidTimeout? = response.error else { return XCTFail("\(response.debugDescription)") }
            XCTAssertNil(response.response)
        }
        var zero = URLRequest(url: try XCTUnwrap(URL(string: try Live.httpbin("/get"))))
        zero.timeoutInterval = 0
        let response = await session(idle: 5).request(zero).serializingData().response
        guard case .invalidTimeout(name: "timeoutInterval", _)? = response.error else {
            return XCTFail("\(response.debugDescription)")
        }
    }

    func testThatHTTP2OffersAnUpgradeOverPlainHTTPWhereAutomaticDoesNot() async throws {
        func upgrade(_ version: SessionConfiguration.HTTPVersion) async throws -> String? {
            let response = await session(idle: 10, version: version).request(try Live.httpbin("/headers"))
                .serializingDecodable(Echo.self).response
            return try response.result.get().headers.first { $0.key.lowercased() == "upgrade" }?.value
        }
        let http2 = try await upgrade(.http2)
        let automatic = try await upgrade(.automatic)
        XCTAssertEqual(http2, "h2c")
        XCTAssertNil(automatic)
    }

    private struct Echo: Decodable { let headers: [String: String] }
    private struct ListenFailed: Error {}

    /// A loopback socket that listens and never accepts; its descriptor and port.
    static func silentListener() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { close(fd); throw ListenFailed() }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
