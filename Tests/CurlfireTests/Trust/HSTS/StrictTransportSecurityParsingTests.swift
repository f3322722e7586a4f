import XCTest
@testable import Curlfire

/// RFC 6797 §6.1: the Strict-Transport-Security grammar and what makes a header ignored. No network.
final class StrictTransportSecurityParsingTests: XCTestCase {
    private func parse(_ value: String) -> StrictTransportSecurity? { StrictTransportSecurity.parse(value) }

    func testThatMaxAgeAloneIsParsed() {
        XCTAssertEqual(parse("max-age=31536000"), StrictTransportSecurity(maxAge: 31_536_000, includesSubdomains: false))
    }

    func testThatIncludeSubDomainsIsRead() {
        XCTAssertEqual(parse("max-age=600; includeSubDomains"), StrictTransportSecurity(maxAge: 600, includesSubdomains: true))
        XCTAssertEqual(parse("includeSubDomains;max-age=600"), StrictTransportSecurity(maxAge: 600, includesSubdomains: true))
    }

    func testThatDirectiveNamesAreCaseInsensitive() {
        XCTAssertEqual(parse("MAX-AGE=5; INCLUDESUBDOMAINS"), StrictTransportSecurity(maxAge: 5, includesSubdomains: true))
        XCTAssertEqual(parse("Max-Age=5"), StrictTransportSecurity(maxAge: 5, includesSubdomains: false))
    }

    func testThatAQuotedMaxAgeIsAccepted() {
        XCTAssertEqual(parse("max-age=\"31536000\""), StrictTransportSecurity(maxAge: 31_536_000, includesSubdomains: false))
        XCTAssertEqual(parse("max-age=\"3\\1\""), StrictTransportSecurity(maxAge: 31, includesSubdomains: false)) // quoted-pair
    }

    func testThatWhitespaceAndEmptyDirectivesAreAllowed() {
        XCTAssertEqual(parse("  max-age = 7 ;; includeSubDomains ; "), StrictTransportSecurity(maxAge: 7, includesSubdomains: true))
        XCTAssertEqual(parse(";max-age=7"), StrictTransportSecurity(maxAge: 7, includesSubdomains: false))
    }

    func testThatUnknownDirectivesAreIgnored() {
        XCTAssertEqual(parse("max-age=9; preload; report-uri=\"https://x/y;z\""),
                       StrictTransportSecurity(maxAge: 9, includesSubdomains: false))
    }

    func testThatZeroMaxAgeIsKept() {
        XCTAssertEqual(parse("max-age=0"), StrictTransportSecurity(maxAge: 0, includesSubdomains: false))
    }

    func testThatAHugeMaxAgeIsClamped() {
        XCTAssertEqual(parse("max-age=99999999999999999999999999")?.maxAge, StrictTransportSecurity.maximumAge)
    }

    func testThatNonConformingHeadersAreIgnored() {
        let invalid = [
            "",                                      // no max-age
            "includeSubDomains",                     // no max-age
            "max-age=10; max-age=20",                // duplicate directive
            "max-age=10; MAX-AGE=10",                // duplicate, case-insensitively
            "max-age=10; includeSubDomains; includesubdomains",
            "max-age=-1", "max-age=1.5", "max-age=", "max-age=abc", "max-age=\"\"",
            "max-age=10; includeSubDomains=yes",     // includeSubDomains takes no value
            "max-age=\"10",                          // unterminated quoted-string
            "max-age=10 garbage",                    // two tokens without a separator
            "max-age 10",
            "=10",
        ]
        for value in invalid { XCTAssertNil(parse(value), value) }
    }

    func testThatOnlyTheFirstOfJoinedFieldsIsRead() {
        // Several header fields arrive joined with ", ": §8.1 processes only the first.
        XCTAssertEqual(parse("max-age=5, max-age=0"), StrictTransportSecurity(maxAge: 5, includesSubdomains: false))
        XCTAssertNil(parse("includeSubDomains, max-age=5"))
    }
}
