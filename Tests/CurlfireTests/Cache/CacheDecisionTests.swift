@testable import Curlfire
import Foundation
import XCTest

/// What the cache does before an attempt, for each policy and directive: no network.
final class CacheDecisionTests: XCTestCase {
    let epoch = CacheFixture.epoch
    /// Fresh for 60 s, with both validators.
    lazy var fresh = CacheFixture.entry(["Cache-Control": "max-age=60", "Date": CacheFixture.httpDate(epoch),
                                         "ETag": #""v1""#, "Last-Modified": CacheFixture.httpDate(epoch - 10)])

    private func decide(_ request: URLRequest, _ entry: CachedEntry?, at offset: TimeInterval = 0,
                        shared: Bool = false) -> CacheDecision {
        CacheDecision.decide(request, headers: request.allHTTPHeaderFields ?? [:], entry: entry, now: epoch + offset,
                             shared: shared)
    }

    private func assertConditional(_ decision: CacheDecision, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .load(sent, candidate) = decision else { return XCTFail("\(decision)", file: file, line: line) }
        XCTAssertEqual(sent.value(forHTTPHeaderField: "If-None-Match"), #""v1""#, file: file, line: line)
        XCTAssertEqual(sent.value(forHTTPHeaderField: "If-Modified-Since"), CacheFixture.httpDate(epoch - 10),
                       file: file, line: line)
        XCTAssertNotNil(candidate, file: file, line: line)
    }

    func testThatAFreshEntryIsAHitAndAStaleOneIsRevalidated() {
        XCTAssertEqual(decide(CacheFixture.request(), fresh, at: 59), .serve(fresh, .hit, revalidateInBackground: false))
        assertConditional(decide(CacheFixture.request(), fresh, at: 61))
    }

    func testThatAMissLoadsThePlainRequest() {
        XCTAssertEqual(decide(CacheFixture.request(), nil), .load(CacheFixture.request(), candidate: nil))
    }

    func testThatOnlyGETAndHEADAreAnswered() {
        let post = CacheFixture.request(method: "POST")
        XCTAssertEqual(decide(post, fresh), .load(post, candidate: nil))
        XCTAssertEqual(decide(CacheFixture.request(method: "HEAD"), fresh), .serve(fresh, .hit, revalidateInBackground: false))
        let staleHead = CacheFixture.request(method: "HEAD")
        XCTAssertEqual(decide(staleHead, fresh, at: 100), .load(staleHead, candidate: nil), "a stale HEAD goes out as is")
    }

    func testThatCachePoliciesAreHonoured() {
        let reload = CacheFixture.request(policy: .reloadIgnoringLocalCacheData)
        XCTAssertEqual(decide(reload, fresh), .load(reload, candidate: nil))
        XCTAssertEqual(decide(CacheFixture.request(policy: .returnCacheDataElseLoad), fresh, at: 1000),
                       .serve(fresh, .stale, revalidateInBackground: false))
        XCTAssertEqual(decide(CacheFixture.request(policy: .returnCacheDataElseLoad), nil),
                       .load(CacheFixture.request(policy: .returnCacheDataElseLoad), candidate: nil))
        XCTAssertEqual(decide(CacheFixture.request(policy: .returnCacheDataDontLoad), fresh, at: 10),
                       .serve(fresh, .hit, revalidateInBackground: false))
        XCTAssertEqual(decide(CacheFixture.request(policy: .returnCacheDataDontLoad), nil), .fail)
        assertConditional(decide(CacheFixture.request(policy: .reloadRevalidatingCacheData), fresh, at: 1))
    }

    func testThatRequestNoCacheAndMaxAgeAndMinFreshForceRevalidation() {
        assertConditional(decide(CacheFixture.request(["Cache-Control": "no-cache"]), fresh, at: 1))
        assertConditional(decide(CacheFixture.request(["Pragma": "no-cache"]), fresh, at: 1))
        assertConditional(decide(CacheFixture.request(["Cache-Control": "max-age=5"]), fresh, at: 10))
        XCTAssertEqual(decide(CacheFixture.request(["Cache-Control": "max-age=5"]), fresh, at: 4),
                       .serve(fresh, .hit, revalidateInBackground: false))
        assertConditional(decide(CacheFixture.request(["Cache-Control": "min-fresh=30"]), fresh, at: 40))
        XCTAssertEqual(decide(CacheFixture.request(["Cache-Control": "min-fresh=30"]), fresh, at: 20),
                       .serve(fresh, .hit, revalidateInBackground: false))
    }

    func testThatMaxStaleServesStaleUnlessMustRevalidate() {
        let request = CacheFixture.request(["Cache-Control": "max-stale=30"])
        XCTAssertEqual(decide(request, fresh, at: 80), .serve(fresh, .stale, revalidateInBackground: false))
        assertConditional(decide(request, fresh, at: 100))
        XCTAssertEqual(decide(CacheFixture.request(["Cache-Control": "max-stale"]), fresh, at: 1e6),
                       .serve(fresh, .stale, revalidateInBackground: false))
        var strict = fresh
        strict.fields[0].value = "max-age=60, must-revalidate"
        assertConditional(decide(request, strict, at: 80))
    }

    func testThatResponseNoCacheAlwaysRevalidates() {
        var entry = fresh
        entry.fields[0].value = "max-age=60, no-cache"
        assertConditional(decide(CacheFixture.request(), entry, at: 1))
    }

    func testThatOnlyIfCachedNeverGoesToTheNetwork() {
        let request = CacheFixture.request(["Cache-Control": "only-if-cached"])
        XCTAssertEqual(decide(request, fresh, at: 1), .serve(fresh, .hit, revalidateInBackground: false))
        XCTAssertEqual(decide(request, fresh, at: 100), .fail)
        XCTAssertEqual(decide(request, nil), .fail)
    }

    func testThatStaleWhileRevalidateServesStaleAndRefreshesInTheBackground() {
        var entry = fresh
        entry.fields[0].value = "max-age=60, stale-while-revalidate=30"
        XCTAssertEqual(decide(CacheFixture.request(), entry, at: 80), .serve(entry, .stale, revalidateInBackground: true))
        assertConditional(decide(CacheFixture.request(), entry, at: 100))
    }

    func testThatTheUsersOwnPreconditionsBypassTheCache() {
        let request = CacheFixture.request(["If-None-Match": #""mine""#])
        XCTAssertEqual(decide(request, fresh), .load(request, candidate: nil))
        let range = CacheFixture.request(["Range": "bytes=0-1"])
        XCTAssertEqual(decide(range, fresh), .load(range, candidate: nil))
    }

    func testThatAnEntryWithoutValidatorsIsReloadedPlainButKeptAsCandidate() {
        let bare = CacheFixture.entry(["Cache-Control": "max-age=1, stale-if-error=60"])
        guard case let .load(sent, candidate) = decide(CacheFixture.request(), bare, at: 10) else { return XCTFail() }
        XCTAssertNil(sent.value(forHTTPHeaderField: "If-None-Match"))
        XCTAssertEqual(candidate, bare)
    }

    func testThatStaleIfErrorAppliesToServerErrorsAndTransportFailuresWithinItsWindow() {
        let entry = CacheFixture.entry(["Cache-Control": "max-age=10, stale-if-error=60"])
        XCTAssertTrue(CacheDecision.servesStaleOnError(entry, status: 503, transportFailed: false, requestHeaders: [:],
                                                       now: epoch + 30, shared: false))
        XCTAssertTrue(CacheDecision.servesStaleOnError(entry, status: nil, transportFailed: true, requestHeaders: [:],
                                                       now: epoch + 30, shared: false))
        XCTAssertFalse(CacheDecision.servesStaleOnError(entry, status: 404, transportFailed: false, requestHeaders: [:],
                                                        now: epoch + 30, shared: false))
        XCTAssertFalse(CacheDecision.servesStaleOnError(entry, status: 500, transportFailed: false, requestHeaders: [:],
                                                        now: epoch + 100, shared: false), "past the window")
        let plain = CacheFixture.entry(["Cache-Control": "max-age=10"])
        XCTAssertTrue(CacheDecision.servesStaleOnError(plain, status: 500, transportFailed: false,
                                                       requestHeaders: ["Cache-Control": "stale-if-error=60"],
                                                       now: epoch + 30, shared: false), "the request's own window")
    }
}
