@testable import Curlfire
import Foundation
import XCTest

/// Cache-Control parsing and HTTP dates: no network.
final class CacheControlTests: XCTestCase {
    func testThatResponseDirectivesAreParsedCaseInsensitivelyWithQuotedValues() {
        let parsed = CacheControl(#"Public, MAX-AGE="60", s-maxage=30, must-revalidate, no-cache="Set-Cookie, X", x-ext=1"#)
        XCTAssertTrue(parsed.isPublic)
        XCTAssertEqual(parsed.maxAge, 60)
        XCTAssertEqual(parsed.sharedMaxAge, 30)
        XCTAssertTrue(parsed.mustRevalidate)
        XCTAssertTrue(parsed.noCache, "a field-qualified no-cache counts as no-cache")
        XCTAssertFalse(parsed.noStore)
    }

    func testThatRequestDirectivesAreParsed() {
        let parsed = CacheControl("no-store, max-age=5, max-stale, min-fresh=7, only-if-cached, stale-if-error=9")
        XCTAssertTrue(parsed.noStore)
        XCTAssertEqual(parsed.maxAge, 5)
        XCTAssertEqual(parsed.maxStale, Int.max, "max-stale without a value accepts any staleness")
        XCTAssertEqual(parsed.minFresh, 7)
        XCTAssertTrue(parsed.onlyIfCached)
        XCTAssertEqual(parsed.staleIfError, 9)
        XCTAssertEqual(CacheControl("max-stale=12").maxStale, 12)
    }

    func testThatInvalidAndHugeDeltaSecondsAreSafe() {
        XCTAssertEqual(CacheControl("max-age=-1").maxAge, 0, "an invalid max-age means stale")
        XCTAssertEqual(CacheControl("max-age=abc").maxAge, 0)
        XCTAssertEqual(CacheControl("max-age=99999999999999999999999").maxAge, 1 << 31, "clamped to 2^31")
        XCTAssertNil(CacheControl("min-fresh=x").minFresh)
        XCTAssertEqual(CacheControl(nil), CacheControl(""))
    }

    func testThatPragmaNoCacheCountsOnlyWithoutCacheControl() {
        XCTAssertTrue(CacheControl(request: ["Pragma": "no-cache"]).noCache)
        XCTAssertFalse(CacheControl(request: ["Pragma": "no-cache", "Cache-Control": "max-age=5"]).noCache)
    }

    func testThatTheThreeHTTPDateFormsParseToTheSameInstant() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), expected)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), expected)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), expected)
        XCTAssertEqual(HTTPDate.parse(CacheFixture.httpDate(CacheFixture.epoch)), CacheFixture.epoch)
    }

    func testThatMalformedDatesAreRejected() {
        for text in ["", "0", "-1", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT",
                     "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 GMT",
                     "Sun, 06 Nov 9223372036854775807 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(text), text)
        }
    }

    func testThatTheFastIMFFixdatePathAgreesWithTheLenientParser() {
        // Every month, days and times at their edges, and month names in other cases.
        var checked = 0
        for (index, month) in ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "DEC"].enumerated() {
            for (day, time) in [("01", "00:00:00"), ("15", "12:34:56"), ("28", "23:59:60")] {
                let text = "Mon, \(day) \(month) \(2000 + index) \(time) GMT"
                let fast = HTTPDate.parseIMFFixdate(text)
                XCTAssertNotNil(fast, text)
                XCTAssertEqual(fast, HTTPDate.parse(text.replacingOccurrences(of: ", ", with: ",  ")), text)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 36)
        for text in ["Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08-49-37 GMT",
                     "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 0a Nov 1994 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parseIMFFixdate(text), text)
        }
    }
}
