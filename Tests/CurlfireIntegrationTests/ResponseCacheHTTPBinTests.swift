import Curlfire
import Foundation
import XCTest

/// The response cache against real httpbin caching endpoints; gunicorn's access log shows which
/// requests reached the server (each URL carries a unique marker).
final class ResponseCacheHTTPBinTests: XCTestCase {
    private func session() -> SessionManager {
        var configuration = SessionConfiguration.default
        configuration.responseCache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil)
        return SessionManager(configuration: configuration)
    }

    /// The access-log lines of requests carrying `marker`, once `expected` have arrived (or after a second).
    private func logged(_ marker: String, expected: Int) throws -> [String] {
        let servers = try Live.servers()
        let deadline = Date().addingTimeInterval(1)
        var lines = servers.accessLogLines("httpbin", containing: marker)
        while lines.count < expected, Date() < deadline {
            usleep(20_000)
            lines = servers.accessLogLines("httpbin", containing: marker)
        }
        return lines
    }

    func testThatCacheMaxAgeIsServedFromTheCache() async throws {
        let marker = Live.marker()
        let url = try Live.httpbin("/cache/60?marker=\(marker)")
        let session = session()
        let first = await session.request(url).validate().serializingJSON().response
        let second = await session.request(url).validate().serializingJSON().response
        XCTAssertEqual(first.cacheStatus, .network)
        XCTAssertEqual(second.cacheStatus, .hit)
        XCTAssertNotNil(second.value)
        usleep(200_000)
        XCTAssertEqual(try logged(marker, expected: 1).count, 1, "httpbin saw one request")
    }

    func testThatCacheIsRevalidatedWithIfModifiedSinceAndIfNoneMatch() async throws {
        let marker = Live.marker()
        let url = try Live.httpbin("/cache?marker=\(marker)")
        let session = session()
        let first = await session.request(url).serializingJSON().response
        let second = await session.request(url).validate().serializingJSON().response
        XCTAssertEqual(first.cacheStatus, .network)
        XCTAssertEqual(second.cacheStatus, .revalidated)
        XCTAssertEqual(second.response?.statusCode, 200)
        XCTAssertEqual((second.value as? [String: Any])?["url"] as? String, url, "the stored body, delivered after the 304")
        let lines = try logged(marker, expected: 2)
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines.last?.contains(" 304 ") ?? false, lines.last ?? "no line")
    }

    func testThatAnETagIsRevalidated() async throws {
        let marker = Live.marker()
        let url = try Live.httpbin("/etag/abc?marker=\(marker)")
        let session = session()
        _ = await session.request(url).serializingData().response
        let second = await session.request(url).validate().serializingData().response
        XCTAssertEqual(second.cacheStatus, .revalidated)
        XCTAssertEqual(second.response?.value(forHTTPHeaderField: "ETag"), "abc")
        XCTAssertTrue(try logged(marker, expected: 2).last?.contains(" 304 ") ?? false)
    }

    func testThatALastModifiedAloneMakesAResponseHeuristicallyFresh() async throws {
        let marker = Live.marker()
        let url = try Live.httpbin("/response-headers?Last-Modified=Mon,%2001%20Jan%202024%2000:00:00%20GMT&marker=\(marker)")
        let session = session()
        _ = await session.request(url).serializingData().response
        let second = await session.request(url).serializingData().response
        XCTAssertEqual(second.cacheStatus, .hit, "10 % of the time since Last-Modified, capped at a day")
        usleep(200_000)
        XCTAssertEqual(try logged(marker, expected: 1).count, 1)
    }

    func testThatResponseHeadersSetFreshnessAndNoStore() async throws {
        let marker = Live.marker()
        let session = session()
        let fresh = try Live.httpbin("/response-headers?Cache-Control=max-age%3D60&marker=\(marker)a")
        _ = await session.request(fresh).serializingData().response
        let hit = await session.request(fresh).serializingData().response
        XCTAssertEqual(hit.cacheStatus, .hit)
        let noStore = try Live.httpbin("/response-headers?Cache-Control=no-store&marker=\(marker)b")
        _ = await session.request(noStore).serializingData().response
        let again = await session.request(noStore).serializingData().response
        XCTAssertEqual(again.cacheStatus, .network)
        usleep(200_000)
        XCTAssertEqual(try logged("\(marker)a", expected: 1).count, 1)
        XCTAssertEqual(try logged("\(marker)b", expected: 2).count, 2)
    }
}
