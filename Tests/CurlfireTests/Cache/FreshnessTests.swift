@testable import Curlfire
import Foundation
import XCTest

/// Age (RFC 9111 §4.2.3) and freshness lifetime (§4.2.1, §4.2.2): no network.
final class FreshnessTests: XCTestCase {
    let epoch = CacheFixture.epoch

    func testThatCurrentAgeAddsAgeHeaderResponseDelayAndResidentTime() {
        // Date equals response_time: apparent age 0; Age: 10 plus a 2 s response delay = 12.
        let entry = CacheFixture.entry(["Date": CacheFixture.httpDate(epoch), "Age": "10"], delay: 2)
        XCTAssertEqual(Freshness.currentAge(of: entry, now: epoch), 12, accuracy: 0.001)
        XCTAssertEqual(Freshness.currentAge(of: entry, now: epoch + 30), 42, accuracy: 0.001, "plus 30 s resident")
    }

    func testThatApparentAgeWinsWhenTheDateIsOlder() {
        // The server's Date is 100 s before the response arrived, no Age header: apparent age 100.
        let entry = CacheFixture.entry(["Date": CacheFixture.httpDate(epoch - 100)], delay: 1)
        XCTAssertEqual(Freshness.currentAge(of: entry, now: epoch), 100, accuracy: 0.001)
    }

    func testThatAClockAheadOfUsNeverMakesANegativeAge() {
        let entry = CacheFixture.entry(["Date": CacheFixture.httpDate(epoch + 500)])
        XCTAssertEqual(Freshness.currentAge(of: entry, now: epoch), 0, accuracy: 0.001)
    }

    func testThatMaxAgeWinsOverExpires() {
        let entry = CacheFixture.entry(["Cache-Control": "max-age=60", "Date": CacheFixture.httpDate(epoch),
                                        "Expires": CacheFixture.httpDate(epoch + 3600)])
        XCTAssertEqual(Freshness.lifetime(of: entry, shared: false), 60)
    }

    func testThatSMaxAgeCountsOnlyForASharedCache() {
        let entry = CacheFixture.entry(["Cache-Control": "max-age=60, s-maxage=5"])
        XCTAssertEqual(Freshness.lifetime(of: entry, shared: false), 60)
        XCTAssertEqual(Freshness.lifetime(of: entry, shared: true), 5)
    }

    func testThatExpiresMinusDateIsTheLifetimeAndAnInvalidExpiresIsStale() {
        let date = CacheFixture.httpDate(epoch)
        XCTAssertEqual(Freshness.lifetime(of: CacheFixture.entry(["Date": date, "Expires": CacheFixture.httpDate(epoch + 90)]),
                                          shared: false), 90)
        XCTAssertEqual(Freshness.lifetime(of: CacheFixture.entry(["Date": date, "Expires": "0"]), shared: false), 0)
    }

    func testThatTheHeuristicIsATenthOfTheLastModifiedAgeCappedAtADay() {
        let recent = CacheFixture.entry(["Date": CacheFixture.httpDate(epoch),
                                         "Last-Modified": CacheFixture.httpDate(epoch - 1000)])
        XCTAssertEqual(Freshness.lifetime(of: recent, shared: false), 100, accuracy: 0.001)
        let old = CacheFixture.entry(["Date": CacheFixture.httpDate(epoch),
                                      "Last-Modified": CacheFixture.httpDate(epoch - 365 * 86_400)])
        XCTAssertEqual(Freshness.lifetime(of: old, shared: false), 86_400, "capped at one day")
    }

    func testThatTheHeuristicAppliesOnlyToHeuristicallyCacheableCodesOrPublic() {
        let headers = ["Date": CacheFixture.httpDate(epoch), "Last-Modified": CacheFixture.httpDate(epoch - 1000)]
        XCTAssertEqual(Freshness.lifetime(of: CacheFixture.entry(headers, status: 500), shared: false), 0)
        XCTAssertEqual(Freshness.lifetime(of: CacheFixture.entry(headers, status: 404), shared: false), 100, accuracy: 0.001)
        var publicHeaders = headers
        publicHeaders["Cache-Control"] = "public"
        XCTAssertEqual(Freshness.lifetime(of: CacheFixture.entry(publicHeaders, status: 500), shared: false), 100,
                       accuracy: 0.001)
    }

    func testThatNoFreshnessInformationMeansZero() {
        XCTAssertEqual(Freshness.lifetime(of: CacheFixture.entry([:]), shared: false), 0)
    }
}
