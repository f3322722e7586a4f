@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The response cache's two hooks in a request's life (architecture rule 12), through a fake engine
/// (FakeEngine.swift): a fresh stored response is served with no attempt, and a stale one with a
/// validator is revalidated by a conditional attempt whose 304 is merged. No libcurl, no network.
final class FakeEngineCacheTests: XCTestCase {
    private let url = "http://fake.test/cached"

    private func cachingSession(_ fake: FakeEngine) -> SessionManager {
        var configuration = SessionConfiguration.default
        configuration.responseCache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil)
        return fake.session(configuration: configuration)
    }

    private func get(_ session: SessionManager) -> Awaited<DefaultDataResponse> {
        let done = Awaited<DefaultDataResponse>()
        session.request(url).response { done.set($0) }
        return done
    }

    func testThatAFreshStoredResponseIsServedWithoutAnAttempt() throws {
        let fake = FakeEngine()
        let session = cachingSession(fake)
        let first = get(session)
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 200, headers: ["Cache-Control": "max-age=600"],
                     body: Data("stored".utf8))
        XCTAssertEqual(first.wait()?.cacheStatus, .network)

        let second = try XCTUnwrap(get(session).wait())
        XCTAssertEqual(second.cacheStatus, .hit)
        XCTAssertEqual(second.response?.statusCode, 200)
        XCTAssertEqual(second.data, Data("stored".utf8))
        XCTAssertEqual(fake.attemptCount, 1, "a hit reached the engine")
    }

    func testThatAStaleStoredResponseIsRevalidatedAndA304IsMergedIntoIt() throws {
        let fake = FakeEngine()
        let session = cachingSession(fake)
        let first = get(session)
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 200,
                     headers: ["Cache-Control": "no-cache", "ETag": "\"e1\"", "X-Version": "1"], body: Data("body".utf8))
        XCTAssertEqual(first.wait()?.data, Data("body".utf8))

        let second = get(session)
        let conditional = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(conditional.request.value(forHTTPHeaderField: "If-None-Match"), "\"e1\"")
        fake.respond(conditional, status: 304, headers: ["ETag": "\"e1\"", "X-Version": "2"])
        let response = try XCTUnwrap(second.wait())
        XCTAssertEqual(response.cacheStatus, .revalidated)
        XCTAssertEqual(response.response?.statusCode, 200, "the 304 was delivered as it is")
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "X-Version"), "2", "the 304's headers refresh the entry")
        XCTAssertEqual(response.data, Data("body".utf8))
        XCTAssertEqual(fake.attemptCount, 2)
    }
}
