@testable import Curlfire
import Foundation
import XCTest

/// Storability, Vary, conditional requests, 304 merging: no network.
final class CacheRulesTests: XCTestCase {
    private func storable(_ headers: [String: String], status: Int = 200, method: String = "GET",
                          request: [String: String] = [:], shared: Bool = false) -> Bool {
        CacheRules.isStorable(method: method, status: status, requestHeaders: request,
                              responseFields: headers.map { CachedEntry.Field(name: $0.key, value: $0.value) }, shared: shared)
    }

    func testThatOnlyGETResponsesAreStored() {
        XCTAssertTrue(storable(["Cache-Control": "max-age=60"]))
        XCTAssertFalse(storable(["Cache-Control": "max-age=60"], method: "HEAD"))
        XCTAssertFalse(storable(["Cache-Control": "max-age=60"], method: "POST"))
    }

    func testThatPartialNotModifiedAndRedirectResponsesAreNeverStored() {
        for status in [206, 304, 301, 302, 303, 307, 308, 101] {
            XCTAssertFalse(storable(["Cache-Control": "max-age=60"], status: status), "\(status)")
        }
    }

    func testThatNoStoreOnEitherSideRefuses() {
        XCTAssertFalse(storable(["Cache-Control": "no-store, max-age=60"]))
        XCTAssertFalse(storable(["Cache-Control": "max-age=60"], request: ["Cache-Control": "no-store"]))
    }

    func testThatNoCacheAndPrivateResponsesAreStoredByAPrivateCache() {
        XCTAssertTrue(storable(["Cache-Control": "no-cache"]))
        XCTAssertTrue(storable(["Cache-Control": "private, max-age=60"], status: 500))
        XCTAssertTrue(storable(["Cache-Control": "max-age=60"], request: ["Authorization": "Bearer x"]))
    }

    func testThatASharedCacheRefusesPrivateAndAuthorizedResponses() {
        XCTAssertFalse(storable(["Cache-Control": "private, max-age=60"], shared: true))
        XCTAssertFalse(storable(["Cache-Control": "max-age=60"], request: ["Authorization": "Bearer x"], shared: true))
        XCTAssertTrue(storable(["Cache-Control": "public, max-age=60"], request: ["Authorization": "Bearer x"], shared: true))
        XCTAssertTrue(storable(["Cache-Control": "s-maxage=60"], request: ["Authorization": "Bearer x"], shared: true))
    }

    func testThatAResponseWithoutFreshnessNeedsAHeuristicallyCacheableStatus() {
        XCTAssertTrue(storable([:], status: 200))
        XCTAssertTrue(storable([:], status: 404))
        XCTAssertFalse(storable([:], status: 500))
        XCTAssertTrue(storable(["Expires": "Thu, 01 Jan 2099 00:00:00 GMT"], status: 500))
    }

    func testThatVaryStarIsNeverStoredNorMatched() {
        XCTAssertFalse(storable(["Cache-Control": "max-age=60", "Vary": "*"]))
        let entry = CacheFixture.entry([:], varyNames: ["*"])
        XCTAssertFalse(CacheRules.varyMatches(entry, requestHeaders: [:]))
    }

    func testThatVaryMatchesNormalisedValuesAndAbsence() {
        let entry = CacheFixture.entry(["Vary": "Accept-Language, X-Mode"], varyNames: ["accept-language", "x-mode"],
                                       varyValues: ["accept-language": "en, fr"])
        XCTAssertTrue(CacheRules.varyMatches(entry, requestHeaders: ["accept-language": "  en,   fr "]))
        XCTAssertFalse(CacheRules.varyMatches(entry, requestHeaders: ["Accept-Language": "de"]))
        XCTAssertFalse(CacheRules.varyMatches(entry, requestHeaders: ["Accept-Language": "en, fr", "X-Mode": "a"]),
                       "a header absent when stored must be absent now")
        XCTAssertFalse(CacheRules.varyMatches(entry, requestHeaders: [:]))
    }

    func testThatAConditionalRequestCarriesBothValidators() {
        let entry = CacheFixture.entry(["ETag": #"W/"abc""#, "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"])
        let conditional = CacheRules.conditionalRequest(CacheFixture.request(), for: entry)
        XCTAssertEqual(conditional.value(forHTTPHeaderField: "If-None-Match"), #"W/"abc""#)
        XCTAssertEqual(conditional.value(forHTTPHeaderField: "If-Modified-Since"), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertNil(CacheRules.conditionalRequest(CacheFixture.request(), for: CacheFixture.entry([:]))
            .value(forHTTPHeaderField: "If-None-Match"))
    }

    func testThatA304MergesNewHeadersButKeepsBodyStatusAndContentLength() {
        let entry = CacheFixture.entry(["Cache-Control": "max-age=1", "ETag": #""v1""#, "Content-Length": "4",
                                        "X-Old": "kept", "Age": "50"], body: "body")
        let now = CacheFixture.epoch + 100
        let merged = CacheRules.merged(entry, with: [.init(name: "Cache-Control", value: "max-age=600"),
                                                     .init(name: "Content-Length", value: "0"),
                                                     .init(name: "X-New", value: "added")],
                                       requestTime: now - 1, responseTime: now)
        XCTAssertEqual(merged.value("cache-control"), "max-age=600")
        XCTAssertEqual(merged.value("content-length"), "4", "a 304's Content-Length never replaces the stored one")
        XCTAssertEqual(merged.value("x-old"), "kept")
        XCTAssertNil(merged.value("age"), "the first response's Age does not outlive the 304")
        XCTAssertEqual(merged.value("x-new"), "added")
        XCTAssertEqual(merged.body, Data("body".utf8))
        XCTAssertEqual(merged.statusCode, 200)
        XCTAssertEqual(merged.responseTime, now)
        XCTAssertEqual(Freshness.currentAge(of: merged, now: now), 1, accuracy: 0.001, "age restarts from the 304")
    }

    func testThatUnsafeMethodsAreTheOnesThatInvalidate() {
        XCTAssertTrue(["POST", "PUT", "DELETE", "PATCH"].allSatisfy(CacheRules.isUnsafe))
        XCTAssertFalse(["GET", "HEAD", "OPTIONS", "TRACE"].contains(where: CacheRules.isUnsafe))
    }

    func testThatTheKeyDropsTheFragment() {
        XCTAssertEqual(CachedEntry.key(for: URL(string: "http://h/p?q=1#frag")), "http://h/p?q=1")
    }

    func testThatAnEntryBecomesTheResponseWithItsAge() throws {
        let entry = CacheFixture.entry(["Content-Type": "text/plain", "Age": "3"])
        let response = try XCTUnwrap(entry.lazyResponse(url: CacheFixture.url, replacing: [.init(name: "Age", value: "9")]).response)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.value(forHTTPHeaderField: "Age"), "9")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "text/plain")
    }
}
