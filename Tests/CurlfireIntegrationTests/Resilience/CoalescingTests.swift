import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `SessionConfiguration.coalescesIdenticalRequests` against a MockServer that answers slowly, so
/// concurrent requests overlap: counted at the server.
final class CoalescingTests: XCTestCase {
    static func session(coalescing: Bool = true, cache: ResponseCache? = nil) -> SessionManager {
        var configuration = SessionConfiguration.default
        configuration.coalescesIdenticalRequests = coalescing
        configuration.responseCache = cache
        return SessionManager(configuration: configuration)
    }

    static func slowServer(delay: TimeInterval = 1, headers: [String: String] = [:]) throws -> MockServer {
        try MockServer(dispatcher: { request in
            MockResponse(headers: headers.merging(["Content-Type": "text/plain"]) { $1 },
                         body: Data("body of \(request.path)".utf8)).delayed(by: delay)
        })
    }

    func testThatAHundredConcurrentIdenticalGETsAreOneRequestAndAHundredResponses() async throws {
        let server = try Self.slowServer()
        let session = Self.session()
        let url = server.url("/shared?q=1")
        let bodies = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<100 { group.addTask { await session.request(url).validate().serializingString().response.value } }
            var all: [String?] = []
            for await body in group { all.append(body) }
            return all
        }
        XCTAssertEqual(bodies.count, 100)
        XCTAssertEqual(bodies.filter { $0 == "body of /shared?q=1" }.count, 100, "\(Set(bodies.map { $0 ?? "nil" }))")
        XCTAssertEqual(server.requestCount, 1, "one transfer for all")

        _ = await session.request(url).serializingData().response
        XCTAssertEqual(server.requestCount, 2, "a request after the flight landed is sent again")
    }

    func testThatCancellingOneCallerLeavesTheOthersTheirResponse() async throws {
        let server = try Self.slowServer(delay: 1.5)
        let session = Self.session()
        let url = server.url("/cancel-one")
        let first = session.request(url).validate()
        let firstTask = Task { await first.serializingString().response }
        try await Task.sleep(nanoseconds: 100_000_000)
        let others = (0..<5).map { _ in session.request(url).validate() }
        let otherTasks = others.map { request in Task { await request.serializingString().response } }
        try await Task.sleep(nanoseconds: 200_000_000)
        first.cancel()
        let cancelled = await firstTask.value
        guard case .explicitlyCancelled? = cancelled.error else { return XCTFail("\(String(describing: cancelled.error))") }
        for task in otherTasks {
            let response = await task.value
            XCTAssertEqual(response.value, "body of /cancel-one", "\(String(describing: response.error))")
        }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatWhenEveryCallerLeavesANewRequestStartsAFreshTransfer() async throws {
        let server = try Self.slowServer(delay: 1)
        let session = Self.session()
        let url = server.url("/all-leave")
        let requests = (0..<3).map { _ in session.request(url) }
        let tasks = requests.map { request in Task { await request.serializingData().response } }
        try await Task.sleep(nanoseconds: 200_000_000)
        requests.forEach { $0.cancel() }
        for task in tasks {
            guard case .explicitlyCancelled? = await task.value.error else { return XCTFail("not cancelled") }
        }
        let fresh = await session.request(url).validate().serializingString().response
        XCTAssertEqual(fresh.value, "body of /all-leave", "not the grounded flight's cancelled transfer")
        XCTAssertEqual(server.requestCount, 2, "the cancelled shared transfer and the fresh one")
    }

    /// The callers of a flight wait outside the engine (its carrier runs there, and was never
    /// started by a user): `cancelAllRequests()` reaches each caller, and the grounded carrier stops.
    func testThatCancelAllRequestsCancelsEveryCallerOfAFlight() async throws {
        let server = try Self.slowServer(delay: 3)
        let session = Self.session()
        let url = server.url("/cancel-all")
        let requests = (0..<4).map { _ in session.request(url) }
        let tasks = requests.map { request in Task { await request.serializingData().response } }
        try await Task.sleep(nanoseconds: 300_000_000)
        let started = Date()
        session.cancelAllRequests()
        for task in tasks {
            let response = await task.value
            guard case .explicitlyCancelled? = response.error else { return XCTFail("\(String(describing: response.error))") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "at once, not when the server answers")
        XCTAssertEqual(requests.map(\.state), Array(repeating: .cancelled, count: 4))
        let fresh = await session.request(url).validate().serializingString().response
        XCTAssertEqual(fresh.value, "body of /cancel-all", "a request after the call is not affected")
        XCTAssertEqual(server.requestCount, 2, "the cancelled shared transfer and the fresh one")
    }

    func testThatItIsOffByDefaultAndDifferentRequestsAreNotCoalesced() async throws {
        let server = try Self.slowServer(delay: 0.3)
        let plain = Self.session(coalescing: false)
        XCTAssertFalse(SessionConfiguration.default.coalescesIdenticalRequests)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { _ = await plain.request(server.url("/plain")).serializingData().response } }
        }
        XCTAssertEqual(server.requestCount, 10, "off by default")

        let session = Self.session()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<5 {
                group.addTask { _ = await session.request(server.url("/h"), headers: ["X-User": "\(index)"]).serializingData().response }
                group.addTask { _ = await session.request(server.url("/p"), method: .post).serializingData().response }
            }
        }
        XCTAssertEqual(server.requestCount, 10 + 5 + 5, "other headers: other requests; POST: never coalesced")
    }

    func testThatConcurrentCacheMissesCollapseToo() async throws {
        let server = try Self.slowServer(headers: ["Cache-Control": "max-age=60"])
        let cache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil)
        let session = Self.session(cache: cache)
        let url = server.url("/cacheable")
        let bodies = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { await session.request(url).validate().serializingString().response.value } }
            var all: [String?] = []
            for await body in group { all.append(body) }
            return all
        }
        XCTAssertEqual(bodies.filter { $0 == "body of /cacheable" }.count, 20)
        XCTAssertEqual(server.requestCount, 1, "20 concurrent misses, one request")
        let hit = await session.request(url).validate().serializingString().response
        XCTAssertEqual(hit.value, "body of /cacheable")
        XCTAssertEqual(server.requestCount, 1, "then a hit from the cache")
    }
}
