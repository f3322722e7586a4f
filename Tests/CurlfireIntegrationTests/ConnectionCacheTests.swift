import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The engine's connection cache keeps the connections a burst opened while fewer requests run
/// (ConnectionCacheSize.swift): libcurl's default would size it by the handles added at each moment
/// and close idle keep-alive connections between bursts.
final class ConnectionCacheTests: XCTestCase {
    /// `count` requests to `path` at once; their metrics, in no particular order.
    private func burst(_ session: SessionManager, count: Int, path: String) async throws -> [TransferMetrics] {
        let url = try Live.httpbin(path)
        return try await withThrowingTaskGroup(of: TransferMetrics.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = await session.request(url).validate().serializingData().response
                    if let error = response.error { throw error }
                    return try XCTUnwrap(response.metrics)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    func testThatABurstAfterSequentialRequestsReusesTheFirstBurstsConnections() async throws {
        var configuration = SessionConfiguration()
        configuration.httpMaximumConnectionsPerHost = 12
        let session = SessionManager(configuration: configuration)
        // Given: 12 slow requests at once, so 12 connections.
        let first = try await burst(session, count: 12, path: "/delay/0.5")
        XCTAssertEqual(Set(first.compactMap(\.localPort)).count, 12, "the first burst ran on 12 connections")
        // When: one request at a time returns each connection to a cache of 12 with one handle added
        // (libcurl's default limit: 4 connections).
        for _ in 0..<10 {
            let response = await session.request(try Live.httpbin("/get")).validate().serializingData().response
            XCTAssertNil(response.error)
            XCTAssertEqual(response.metrics?.isReusedConnection, true)
        }
        // Then: the second burst finds its 12 connections still open.
        let second = try await burst(session, count: 12, path: "/delay/0.5")
        let opened = second.filter { !$0.isReusedConnection }.count
        XCTAssertEqual(opened, 0, "no connection of the first burst was closed between the bursts")
        XCTAssertEqual(Set(second.compactMap(\.localPort)), Set(first.compactMap(\.localPort)))
    }
}
