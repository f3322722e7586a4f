import Curlfire
import CurlfireTestSupport
import Foundation
import FoundationNetworking
import XCTest

/// Requests over Unix domain sockets (issue 26, point 2) against nginx listening on
/// `unix:…/http.sock` (scripts/test-servers.py) and, for an abstract socket, scripts/unix-http-server.py.
final class UnixSocketTests: XCTestCase {
    private func nginxSocket() throws -> String {
        try XCTUnwrap(try Live.servers().nginxUnixSocket, "test-servers.py gives nginx's Unix socket")
    }

    /// The `conn=` serials nginx logged for requests whose line holds `marker`.
    private func connections(marker: String) throws -> [String] {
        let log = try XCTUnwrap(try Live.servers().logs["nginx"])
        let text = try String(contentsOf: log, encoding: .utf8)
        return text.split(separator: "\n").filter { $0.contains(marker) }.compactMap { line in
            line.range(of: " conn=").map { String(line[$0.upperBound...].prefix { $0 != " " }) }
        }
    }

    func testThatASessionSocketCarriesEveryRequestAndReusesItsConnection() async throws {
        var configuration = SessionConfiguration()
        configuration.unixSocketPath = try nginxSocket()
        let session = SessionManager(configuration: configuration)
        let marker = Live.marker()
        // No TCP server answers on this host and port: only the socket can.
        for index in 0..<3 {
            let response = await session.request("http://docker.invalid:1/small.txt?\(marker)=\(index)")
                .validate().serializingData().response
            XCTAssertEqual(response.response?.statusCode, 200, "\(response.debugDescription)")
            XCTAssertEqual(response.data.map { String(decoding: $0, as: UTF8.self) }, "Hello, Curlfire!\n")
            if index > 0 { XCTAssertEqual(response.metrics?.isReusedConnection, true, "request \(index)") }
        }
        try await Task.sleep(nanoseconds: 300_000_000) // nginx writes its log line after the response
        let serials = try connections(marker: marker)
        XCTAssertEqual(serials.count, 3)
        XCTAssertEqual(Set(serials).count, 1, "one connection on the socket for all three: \(serials)")
    }

    func testThatAnHTTPUnixURLNamesItsOwnSocket() async throws {
        let encoded = try XCTUnwrap(try nginxSocket().addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let response = await SessionManager().request("http+unix://\(encoded)/small.txt").validate()
            .serializingString().response
        XCTAssertEqual(response.value, "Hello, Curlfire!\n", "\(response.debugDescription)")
        XCTAssertEqual(response.request?.url?.scheme, "http+unix", "the request keeps the URL it was given")
    }

    func testThatAMissingSocketIsCannotConnect() async throws {
        var configuration = SessionConfiguration()
        configuration.unixSocketPath = NSTemporaryDirectory() + "curlfire-no-such-\(UUID().uuidString.prefix(8)).sock"
        let response = await SessionManager(configuration: configuration).request("http://localhost/")
            .serializingData().response
        XCTAssertEqual(response.error?.transportErrorCode, .cannotConnect, "\(response.debugDescription)")
        let missing = await SessionManager().request("http+unix://%2Fnonexistent%2Fcurlfire.sock/").serializingData().response
        XCTAssertEqual(missing.error?.transportErrorCode, .cannotConnect, "\(missing.debugDescription)")
    }

    func testThatAnAbstractSocketIsReached() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let name = "curlfire-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        let started = try BackgroundProcess.start(["python3", root.appendingPathComponent("scripts/unix-http-server.py").path,
                                                   "--name", name, "--parent-pid", String(getpid())])
        defer { kill(started.pid, SIGTERM) }
        XCTAssertTrue(started.firstLine.contains(name), started.firstLine)
        var configuration = SessionConfiguration()
        configuration.unixSocketPath = "@" + name
        let response = await SessionManager(configuration: configuration).request("http://api.internal/v1/info")
            .serializingDecodable(Echo.self).response
        let echo = try response.result.get()
        XCTAssertEqual(echo.path, "/v1/info")
        XCTAssertEqual(echo.host, "api.internal", "the URL's host is the Host header")
        let viaURL = await SessionManager().request("http+unix://%40\(name)/x?y=1").serializingDecodable(Echo.self).response
        XCTAssertEqual(try viaURL.result.get().path, "/x?y=1")
    }

    private struct Echo: Decodable {
        let path: String
        let host: String?
    }
}
