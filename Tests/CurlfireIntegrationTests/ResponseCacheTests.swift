import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// The response cache in a session, against a MockServer: its `requestCount` proves what never
/// reached the server.
final class ResponseCacheTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-session-cache-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func cachingSession(disk: Bool = false, handler: (any CachedResponseHandler)? = nil,
                                monitors: [any EventMonitor] = []) -> (SessionManager, ResponseCache) {
        let cache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: disk ? 1 << 20 : 0, directory: disk ? directory : nil)
        var configuration = SessionConfiguration.default
        configuration.responseCache = cache
        return (SessionManager(configuration: configuration, eventMonitors: monitors, cachedResponseHandler: handler), cache)
    }

    private func text(_ body: String, _ headers: [String: String]) -> MockResponse {
        MockResponse(statusCode: 200, headers: headers.merging(["Content-Type": "text/plain"]) { a, _ in a }, body: Data(body.utf8))
    }

    func testThatASecondRequestIsServedFromTheCacheThroughHandlersValidatorsAndSerializers() async throws {
        let server = try MockServer()
        server.enqueue(text("cached", ["Cache-Control": "max-age=60"]))
        let monitor = EventMonitorTests.RecordingMonitor()
        let (session, cache) = cachingSession(monitors: [monitor])
        let url = server.url("/item")

        let first = await session.request(url).validate().serializingString().response
        let second = await session.request(url).validate(contentType: ["text/plain"]).serializingString().response

        XCTAssertEqual(first.value, "cached")
        XCTAssertEqual(first.cacheStatus, .network)
        XCTAssertEqual(second.value, "cached")
        XCTAssertEqual(second.cacheStatus, .hit)
        XCTAssertEqual(second.response?.statusCode, 200)
        XCTAssertNotNil(second.response?.value(forHTTPHeaderField: "Age"), "a served response carries its Age")
        XCTAssertEqual(server.requestCount, 1, "the server never saw the second request")
        XCTAssertGreaterThan(second.timeline.requestStartTime, 0, "a hit still has a Timeline")
        XCTAssertGreaterThanOrEqual(second.timeline.totalDuration, 0)
        XCTAssertNil(second.metrics, "no attempt, no metrics")
        XCTAssertGreaterThan(cache.currentMemoryUsage, 0)
        XCTAssertEqual(monitor.delivered.suffix(4), ["created", "resumed", "finished", "parsed"],
                       "a hit ends without an attempt: no metrics or attempt events")
    }

    func testThatWithoutACacheEveryResponseComesFromTheNetwork() async throws {
        let server = try MockServer()
        server.enqueue(text("a", ["Cache-Control": "max-age=60"]))
        server.enqueue(text("b", ["Cache-Control": "max-age=60"]))
        let session = SessionManager()
        let first = await session.request(server.url("/x")).serializingString().response
        let second = await session.request(server.url("/x")).serializingString().response
        XCTAssertEqual([first.value, second.value], ["a", "b"])
        XCTAssertEqual(second.cacheStatus, .network)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatAStaleEntryIsRevalidatedAndA304IsMergedIntoIt() async throws {
        let server = try MockServer()
        server.enqueue(text("original", ["Cache-Control": "max-age=0", "ETag": #""v1""#, "X-Version": "1"]))
        server.enqueue(MockResponse(statusCode: 304, headers: ["Cache-Control": "max-age=60", "ETag": #""v1""#,
                                                               "X-Version": "2"]))
        let (session, _) = cachingSession()
        let url = server.url("/doc")

        _ = await session.request(url).serializingString().response
        let revalidated = await session.request(url).validate().serializingString().response
        let hit = await session.request(url).serializingString().response

        _ = server.takeRequest()
        let conditional = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(conditional.header("If-None-Match"), #""v1""#)
        XCTAssertEqual(revalidated.cacheStatus, .revalidated)
        XCTAssertEqual(revalidated.response?.statusCode, 200, "the stored response, not the 304, is delivered")
        XCTAssertEqual(revalidated.value, "original")
        XCTAssertEqual(revalidated.response?.value(forHTTPHeaderField: "X-Version"), "2", "the 304's headers are merged")
        XCTAssertNotNil(revalidated.metrics, "a revalidation is an attempt")
        XCTAssertEqual(hit.cacheStatus, .hit, "the 304's max-age=60 refreshed the entry")
        XCTAssertEqual(hit.response?.value(forHTTPHeaderField: "X-Version"), "2")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatARedirectAfterAConditionalRequestDoesNotCarryTheValidatorsToTheTarget() async throws {
        let server = try MockServer()
        server.enqueue(text("old", ["Cache-Control": "max-age=0", "ETag": #""a1""#]))
        server.enqueue(MockResponse(statusCode: 301, headers: ["Location": "/moved"]))
        server.enqueue(text("moved", [:]))
        let (session, _) = cachingSession()
        _ = await session.request(server.url("/origin")).serializingString().response
        let moved = await session.request(server.url("/origin")).serializingString().response
        XCTAssertEqual(moved.value, "moved")
        XCTAssertEqual(moved.cacheStatus, .network)
        _ = server.takeRequest()
        XCTAssertEqual(server.takeRequest()?.header("If-None-Match"), #""a1""#, "hop 0 was conditional")
        XCTAssertNil(server.takeRequest()?.header("If-None-Match"), "the redirect target is asked plainly")
    }

    func testThatReturnCacheDataDontLoadFailsAMissWithoutSending() async throws {
        let server = try MockServer()
        let (session, _) = cachingSession()
        var request = URLRequest(url: server.url("/never"))
        request.cachePolicy = .returnCacheDataDontLoad
        let response = await session.request(request).serializingData().response
        guard case .cacheMiss? = response.error else { return XCTFail("\(String(describing: response.error))") }
        XCTAssertEqual(server.requestCount, 0)

        var onlyIfCached = URLRequest(url: server.url("/never"))
        onlyIfCached.setValue("only-if-cached", forHTTPHeaderField: "Cache-Control")
        guard case .cacheMiss? = await session.request(onlyIfCached).serializingData().response.error else {
            return XCTFail("only-if-cached must fail a miss")
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testThatReloadIgnoringAndReturnCacheDataElseLoadAreHonoured() async throws {
        let server = try MockServer()
        server.enqueue(text("one", ["Cache-Control": "max-age=0"]))
        server.enqueue(text("two", ["Cache-Control": "max-age=60"]))
        let (session, _) = cachingSession()
        let url = server.url("/p")
        _ = await session.request(url).serializingString().response

        var elseLoad = URLRequest(url: url)
        elseLoad.cachePolicy = .returnCacheDataElseLoad
        let stale = await session.request(elseLoad).serializingString().response
        XCTAssertEqual(stale.value, "one")
        XCTAssertEqual(stale.cacheStatus, .stale, "served stale by policy")

        var reload = URLRequest(url: url)
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        let reloaded = await session.request(reload).serializingString().response
        XCTAssertEqual(reloaded.value, "two")
        XCTAssertEqual(reloaded.cacheStatus, .network)
        XCTAssertEqual(server.requestCount, 2)
        let hit = await session.request(url).serializingString().response
        XCTAssertEqual(hit.value, "two", "the reloaded response was stored")
        XCTAssertEqual(hit.cacheStatus, .hit)
    }

    func testThatNoStoreResponsesAndNoStoreRequestsAreNotStored() async throws {
        let server = try MockServer()
        server.enqueue(text("a", ["Cache-Control": "no-store, max-age=60"]))
        server.enqueue(text("b", ["Cache-Control": "max-age=60"]))
        server.enqueue(text("c", ["Cache-Control": "max-age=60"]))
        let (session, cache) = cachingSession()
        let url = server.url("/s")
        _ = await session.request(url).serializingString().response
        _ = await session.request(url, headers: ["Cache-Control": "no-store"]).serializingString().response
        let third = await session.request(url).serializingString().response
        XCTAssertEqual(third.value, "c")
        XCTAssertEqual(third.cacheStatus, .network)
        XCTAssertEqual(server.requestCount, 3)
        XCTAssertNotNil(cache.cachedResponse(for: URLRequest(url: url)), "the third was storable")
    }

    func testThatVarySelectsByTheRequestHeaders() async throws {
        let server = try MockServer()
        server.enqueue(text("en", ["Cache-Control": "max-age=60", "Vary": "Accept-Language"]))
        server.enqueue(text("fr", ["Cache-Control": "max-age=60", "Vary": "Accept-Language"]))
        let (session, _) = cachingSession()
        let url = server.url("/v")
        _ = await session.request(url, headers: ["Accept-Language": "en"]).serializingString().response
        let english = await session.request(url, headers: ["Accept-Language": "en"]).serializingString().response
        let french = await session.request(url, headers: ["Accept-Language": "fr"]).serializingString().response
        XCTAssertEqual(english.cacheStatus, .hit)
        XCTAssertEqual(french.value, "fr")
        XCTAssertEqual(french.cacheStatus, .network)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatVaryStarIsNeverServed() async throws {
        let server = try MockServer()
        server.enqueue(text("1", ["Cache-Control": "max-age=60", "Vary": "*"]))
        server.enqueue(text("2", ["Cache-Control": "max-age=60", "Vary": "*"]))
        let (session, _) = cachingSession()
        _ = await session.request(server.url("/star")).serializingString().response
        let second = await session.request(server.url("/star")).serializingString().response
        XCTAssertEqual(second.value, "2")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatAnUnsafeMethodInvalidatesTheStoredResponse() async throws {
        let server = try MockServer()
        server.enqueue(text("v1", ["Cache-Control": "max-age=60"]))
        server.enqueue(MockResponse(statusCode: 204))
        server.enqueue(text("v2", ["Cache-Control": "max-age=60"]))
        let (session, cache) = cachingSession()
        let url = server.url("/thing")
        _ = await session.request(url).serializingString().response
        _ = await session.request(url, method: .post).serializingData().response
        XCTAssertNil(cache.cachedResponse(for: URLRequest(url: url)))
        let after = await session.request(url).serializingString().response
        XCTAssertEqual(after.value, "v2")
        XCTAssertEqual(server.requestCount, 3)
    }

    func testThatHEADIsAnsweredFromAStoredGET() async throws {
        let server = try MockServer()
        server.enqueue(text("body", ["Cache-Control": "max-age=60"]))
        let (session, _) = cachingSession()
        let url = server.url("/h")
        _ = await session.request(url).serializingString().response
        let head = await session.request(url, method: .head).serializingData().response
        XCTAssertEqual(head.cacheStatus, .hit)
        XCTAssertEqual(head.data, Data())
        XCTAssertEqual(head.response?.statusCode, 200)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatCachedResponseHandlersDecideOnTheSessionAndPerRequest() async throws {
        let server = try MockServer()
        for body in ["a", "b", "c"] { server.enqueue(text(body, ["Cache-Control": "max-age=60"])) }
        let (session, cache) = cachingSession(handler: ResponseCacher.doNotCache)
        let url = server.url("/handled")
        _ = await session.request(url).serializingString().response
        XCTAssertNil(cache.cachedResponse(for: URLRequest(url: url)), "the session's handler refused")

        let modifier = ResponseCacher(behavior: .modify { _, proposed in
            var changed = proposed
            changed.data = Data("modified".utf8)
            return changed
        })
        _ = await session.request(url).cacheResponse(using: modifier).serializingString().response
        let hit = await session.request(url).serializingString().response
        XCTAssertEqual(hit.cacheStatus, .hit)
        XCTAssertEqual(hit.value, "modified", "the request's handler wins and its modification is stored")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatStaleIfErrorServesTheStoredResponseOnA503() async throws {
        let server = try MockServer()
        server.enqueue(text("good", ["Cache-Control": "max-age=0, stale-if-error=60"]))
        server.enqueue(MockResponse(statusCode: 503))
        let (session, _) = cachingSession()
        let url = server.url("/sie")
        _ = await session.request(url).serializingString().response
        let fallback = await session.request(url).validate().serializingString().response
        XCTAssertEqual(fallback.value, "good")
        XCTAssertEqual(fallback.cacheStatus, .stale)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatStaleWhileRevalidateServesStaleAndRefreshesInTheBackground() async throws {
        let server = try MockServer()
        server.enqueue(text("old", ["Cache-Control": "max-age=0, stale-while-revalidate=60", "ETag": #""e1""#]))
        server.enqueue(MockResponse(statusCode: 304, headers: ["Cache-Control": "max-age=60", "ETag": #""e1""#]))
        let (session, cache) = cachingSession()
        let url = server.url("/swr")
        _ = await session.request(url).serializingString().response
        let stale = await session.request(url).serializingString().response
        XCTAssertEqual(stale.value, "old")
        XCTAssertEqual(stale.cacheStatus, .stale)
        _ = server.takeRequest()
        let background = try XCTUnwrap(server.takeRequest(timeout: 5))
        XCTAssertEqual(background.header("If-None-Match"), #""e1""#)
        for _ in 0..<100 { // the background 304 is merged a moment after it is sent
            let stored = cache.cachedResponse(for: URLRequest(url: url))?.response
            if stored?.value(forHTTPHeaderField: "Cache-Control") == "max-age=60" { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let hit = await session.request(url).serializingString().response
        XCTAssertEqual(hit.cacheStatus, .hit, "the background 304 refreshed the entry")
        XCTAssertEqual(hit.value, "old")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatTheDiskTierServesAfterARestart() async throws {
        let server = try MockServer()
        server.enqueue(text("persisted", ["Cache-Control": "max-age=600"]))
        let url = server.url("/disk")
        do {
            let (session, cache) = cachingSession(disk: true)
            _ = await session.request(url).serializingString().response
            XCTAssertGreaterThan(cache.currentDiskUsage, 0)
        }
        let (restarted, _) = cachingSession(disk: true)
        let response = await restarted.request(url).serializingString().response
        XCTAssertEqual(response.value, "persisted")
        XCTAssertEqual(response.cacheStatus, .hit)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatConcurrentRequestsForOneURLAreSafe() async throws {
        let server = try MockServer()
        for _ in 0..<8 { server.enqueue(text("same", ["Cache-Control": "max-age=60"])) }
        let (session, _) = cachingSession(disk: true)
        let url = server.url("/burst")
        let values = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { await session.request(url).serializingString().response.value } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        XCTAssertEqual(values, Array(repeating: "same", count: 8))
        let later = await session.request(url).serializingString().response
        XCTAssertEqual(later.cacheStatus, .hit)
    }

    func testThatAPrivateCacheStoresPrivateResponsesAndASharedOneRefusesThemAndAuthorizedOnes() async throws {
        let server = try MockServer()
        for _ in 0..<2 { server.enqueue(text("mine", ["Cache-Control": "private, max-age=60"])) }
        let (privateSession, _) = cachingSession()
        _ = await privateSession.request(server.url("/me")).serializingString().response
        let privateHit = await privateSession.request(server.url("/me")).serializingString().response
        XCTAssertEqual(privateHit.cacheStatus, .hit, "a private cache stores private responses")

        var configuration = SessionConfiguration.default
        let shared = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil, isShared: true)
        configuration.responseCache = shared
        let sharedSession = SessionManager(configuration: configuration)
        _ = await sharedSession.request(server.url("/me")).serializingString().response
        XCTAssertNil(shared.cachedResponse(for: URLRequest(url: server.url("/me"))), "a shared cache refuses private")
        server.enqueue(text("token", ["Cache-Control": "max-age=60"]))
        _ = await sharedSession.request(server.url("/auth"), headers: ["Authorization": "Bearer t"]).serializingString().response
        XCTAssertNil(shared.cachedResponse(for: URLRequest(url: server.url("/auth"))),
                     "a shared cache refuses responses to requests with Authorization")
        server.enqueue(text("open", ["Cache-Control": "max-age=60"]))
        _ = await sharedSession.request(server.url("/open")).serializingString().response
        XCTAssertNotNil(shared.cachedResponse(for: URLRequest(url: server.url("/open"))), "the control is stored")
    }

    func testThatReloadRevalidatingAndRequestMaxAgeRevalidateAFreshEntry() async throws {
        let server = try MockServer()
        server.enqueue(text("v", ["Cache-Control": "max-age=600", "ETag": #""r1""#]))
        server.enqueue(MockResponse(statusCode: 304, headers: ["ETag": #""r1""#]))
        server.enqueue(MockResponse(statusCode: 304, headers: ["ETag": #""r1""#]))
        let (session, _) = cachingSession()
        let url = server.url("/fresh")
        _ = await session.request(url).serializingString().response
        var revalidating = URLRequest(url: url)
        revalidating.cachePolicy = .reloadRevalidatingCacheData
        let first = await session.request(revalidating).serializingString().response
        let second = await session.request(url, headers: ["Cache-Control": "max-age=0"]).serializingString().response
        XCTAssertEqual([first.cacheStatus, second.cacheStatus], [.revalidated, .revalidated])
        XCTAssertEqual([first.value, second.value], ["v", "v"])
        XCTAssertEqual(server.requestCount, 3)
    }

    func testThatAHitSetsTheRequestsResponse() async throws {
        let server = try MockServer()
        server.enqueue(text("r", ["Cache-Control": "max-age=60", "X-Tag": "t"]))
        let (session, _) = cachingSession()
        _ = await session.request(server.url("/r")).serializingString().response
        let request = session.request(server.url("/r"))
        let hit = await request.serializingString().response
        XCTAssertEqual(hit.cacheStatus, .hit)
        XCTAssertEqual(request.response?.value(forHTTPHeaderField: "X-Tag"), "t")
        XCTAssertTrue(request.description.hasSuffix("(200)"), request.description)
    }

    func testThatStreamsAreNotCached() async throws {
        let server = try MockServer()
        server.enqueue(text("chunk", ["Cache-Control": "max-age=60"]))
        server.enqueue(text("chunk", ["Cache-Control": "max-age=60"]))
        let (session, cache) = cachingSession()
        let url = server.url("/stream")
        for _ in 0..<2 {
            var received = Data()
            for try await chunk in session.streamRequest(url).streamingData() { received.append(chunk) }
            XCTAssertEqual(received, Data("chunk".utf8))
        }
        XCTAssertNil(cache.cachedResponse(for: URLRequest(url: url)))
        XCTAssertEqual(server.requestCount, 2)
    }

    func testThatDownloadsAreNotCached() async throws {
        let server = try MockServer()
        server.enqueue(text("file", ["Cache-Control": "max-age=60"]))
        server.enqueue(text("file", ["Cache-Control": "max-age=60"]))
        let (session, cache) = cachingSession()
        let url = server.url("/dl")
        _ = await session.download(url).serializingData().response
        XCTAssertNil(cache.cachedResponse(for: URLRequest(url: url)))
        _ = await session.download(url).serializingData().response
        XCTAssertEqual(server.requestCount, 2)
    }
}
