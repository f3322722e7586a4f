import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Connection pool tuning, proved by nginx's access log (`conn=$connection`, the connection's serial
/// number): issue 26, point 5.
final class ConnectionPoolTests: XCTestCase {
    private func nginx(_ path: String) throws -> String {
        try XCTUnwrap(try Live.servers().nginxHTTP).absoluteString + path
    }

    /// The `conn=` serial of each logged request whose line holds `marker`, in log order.
    private func connections(marker: String) async throws -> [String] {
        try await Task.sleep(nanoseconds: 300_000_000) // nginx logs after the response
        let log = try XCTUnwrap(try Live.servers().logs["nginx"])
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.contains(marker) }
            .compactMap { line in line.range(of: " conn=").map { String(line[$0.upperBound...].prefix { $0 != " " }) } }
    }

    private func session(_ change: (inout SessionConfiguration) -> Void) -> SessionManager {
        var configuration = SessionConfiguration()
        change(&configuration)
        return SessionManager(configuration: configuration)
    }

    /// GETs small.txt every `every` seconds, `count` times, in order.
    private func requests(_ session: SessionManager, count: Int, every: TimeInterval, marker: String) async throws {
        for index in 0..<count {
            let response = await session.request(try nginx("/small.txt?\(marker)=\(index)")).validate().serializingData().response
            XCTAssertNil(response.error, "\(response.debugDescription)")
            if index < count - 1 { try await Task.sleep(nanoseconds: UInt64(every * 1e9)) }
        }
    }

    func testThatALifetimeOfOneSecondMakesANewConnectionAfterIt() async throws {
        // A request every 0.3 s for 2.7 s: never idle, but older than 1 s (libcurl counts whole
        // seconds: a connection goes once its age in whole seconds passes 1, so within 2 s).
        let marker = Live.marker()
        try await requests(session { $0.maximumConnectionLifetime = 1 }, count: 10, every: 0.3, marker: marker)
        let serials = try await connections(marker: marker)
        XCTAssertEqual(serials.count, 10)
        XCTAssertGreaterThanOrEqual(Set(serials).count, 2, "a new connection after 1 s: \(serials)")
        XCTAssertEqual(serials.first, serials[1], "reused while young")

        let control = Live.marker()
        try await requests(session { _ in }, count: 10, every: 0.3, marker: control)
        let controlSerials = try await connections(marker: control)
        XCTAssertEqual(Set(controlSerials).count, 1, "without a lifetime: one connection")
    }

    func testThatAnIdleTimeOfOneSecondRetiresOnlyAnIdleConnection() async throws {
        let busy = Live.marker()
        try await requests(session { $0.maximumConnectionIdleTime = 1 }, count: 10, every: 0.3, marker: busy)
        let busySerials = try await connections(marker: busy)
        XCTAssertEqual(Set(busySerials).count, 1, "never idle for 1 s: one connection")
        let idle = Live.marker()
        try await requests(session { $0.maximumConnectionIdleTime = 1 }, count: 2, every: 2.2, marker: idle)
        let idleSerials = try await connections(marker: idle)
        XCTAssertEqual(Set(idleSerials).count, 2, "idle for 2 s: a new connection")
    }

    func testThatACapOfTwoKeepsTwoConnections() async throws {
        // Six downloads at once, each paced to last about 0.5 s, so they overlap.
        let capped = session {
            $0.maximumConnections = 2
            $0.maximumDownloadBytesPerSecond = 400_000
            $0.tcpKeepAlive = .init(idle: 30, interval: 10)
        }
        let marker = Live.marker()
        let large = try nginx("/large.bin")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let url = large + "?\(marker)=\(index)"
                    let response = await capped.request(url, headers: ["Range": "bytes=0-199999"]).validate()
                        .serializingData().response
                    XCTAssertEqual(response.data?.count, 200_000, "\(response.debugDescription)")
                }
            }
        }
        let serials = try await connections(marker: marker)
        XCTAssertEqual(serials.count, 6)
        XCTAssertEqual(Set(serials).count, 2, "at most 2 connections, both used: \(serials)")
    }

    func testThatTheHTTP2StreamCapOpensMoreConnections() async throws {
        let https = try XCTUnwrap(try Live.servers().nginxHTTPS).absoluteString
        let root = try Certificate(contentsOf: try Live.servers().pkiFile("root-ca.pem"))
        func run(streams: Int?) async throws -> Int {
            let session = session {
                $0.trustedRootCertificates = [root]
                $0.http2MaximumConcurrentStreams = streams
                $0.maximumDownloadBytesPerSecond = 400_000
            }
            // One request first, so the others know the connection is HTTP/2 and may share it.
            let warm = Live.marker()
            _ = await session.request(https + "/small.txt?\(warm)").serializingData().response
            let marker = Live.marker()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let response = await session.request(https + "/large.bin?\(marker)=\(index)",
                                                             headers: ["Range": "bytes=0-199999"]).serializingData().response
                        XCTAssertEqual(response.data?.count, 200_000, "\(response.debugDescription)")
                        XCTAssertEqual(response.metrics?.httpVersion, "HTTP/2")
                    }
                }
            }
            return Set(try await connections(marker: marker)).count
        }
        let shared = try await run(streams: nil)
        let capped = try await run(streams: 1)
        XCTAssertEqual(shared, 1, "four streams on one HTTP/2 connection")
        XCTAssertGreaterThan(capped, 1, "one stream per connection: more connections")
    }
}
