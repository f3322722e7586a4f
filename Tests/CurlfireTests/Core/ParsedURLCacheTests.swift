@testable import Curlfire
import Foundation
import XCTest

/// `String.asURL()` keeps the last string it parsed (ParsedURLCache.swift): a hit must return exactly
/// what a parse would, and a miss must parse.
final class ParsedURLCacheTests: XCTestCase {
    func testThatTheSameStringAgainGivesTheSameURL() throws {
        let string = "http://127.0.0.1:1/items?page=2"
        let first = try string.asURL()
        XCTAssertEqual(ParsedURLCache.url(for: string), first, "a parsed string is kept")
        XCTAssertEqual(try string.asURL(), first)
        XCTAssertEqual(try String("http://127.0.0.1:1/items?page=").appending("2").asURL(), first,
                       "another string with the same bytes hits too")
    }

    func testThatADifferentStringIsParsed() throws {
        _ = try "http://127.0.0.1:1/a".asURL()
        XCTAssertEqual(try "http://127.0.0.1:1/b".asURL().path, "/b")
        XCTAssertEqual(try "http://127.0.0.1:1/a".asURL().path, "/a")
    }

    /// Swift's `==` holds for these two strings; their bytes, and so their URLs, differ.
    func testThatCanonicallyEquivalentStringsAreNotTheSameEntry() throws {
        let composed = "http://127.0.0.1:1/caf\u{E9}"
        let decomposed = "http://127.0.0.1:1/cafe\u{301}"
        XCTAssertEqual(composed, decomposed)
        let first = try composed.asURL()
        let second = try decomposed.asURL()
        XCTAssertEqual(first, URL(string: composed))
        XCTAssertEqual(second, URL(string: decomposed))
        XCTAssertNotEqual(first, second, "each string gets the URL its own bytes parse to")
        XCTAssertFalse(ParsedURLCache.sameBytes(composed, decomposed))
    }

    func testThatBytesAreComparedWhateverTheStorage() {
        XCTAssertTrue(ParsedURLCache.sameBytes("", ""))
        XCTAssertTrue(ParsedURLCache.sameBytes("http://h/a", String("http://h/") + "a"))
        XCTAssertFalse(ParsedURLCache.sameBytes("http://h/a", "http://h/b"), "same length, one byte differs")
        XCTAssertFalse(ParsedURLCache.sameBytes("http://h/a", "http://h/ab"))
        // A string Foundation built from UTF-16 storage, compared with a native one.
        let units = Array("http://h/caf\u{E9}".utf16)
        let utf16 = String(NSString(characters: units, length: units.count))
        XCTAssertTrue(ParsedURLCache.sameBytes(utf16, "http://h/caf\u{E9}"))
        XCTAssertFalse(ParsedURLCache.sameBytes(utf16, "http://h/caf\u{E8}"), "same length, one byte differs")
    }

    func testThatAnInvalidStringStillThrowsAndIsNeverKept() throws {
        _ = try "http://127.0.0.1:1/a".asURL()
        for invalid in ["not a url", "/relative/path", "http://", ""] {
            XCTAssertThrowsError(try invalid.asURL(), invalid) { error in
                guard case let .invalidURL(url)? = error as? CurlfireError else { return XCTFail("\(error)") }
                XCTAssertEqual(url, invalid)
            }
            XCTAssertNil(ParsedURLCache.url(for: invalid), invalid)
            XCTAssertThrowsError(try invalid.asURL(), "still refused the second time: \(invalid)")
        }
    }

    /// Threads parsing different strings at once each get their own URL (run under ThreadSanitizer in CI).
    func testThatConcurrentParsesOfDifferentStringsEachGetTheirOwnURL() {
        let mismatches = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 {
                let path = "/\(thread)/\(index % 3)"
                let url = try? "http://127.0.0.1:1\(path)".asURL()
                if url?.path != path { mismatches.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(mismatches.withLock { $0 }, 0)
    }
}

/// The kept URL remembers that it passed a request's target checks (``RequestChecks``), so Foundation
/// does not read its scheme and host again; a URL that failed them is checked, and refused, every time.
final class ParsedURLCacheTargetCheckTests: XCTestCase {
    private func check(_ url: URL) -> CurlfireError? {
        RequestChecks.validate(.plain(url: url, method: .get, timeout: 60), body: .none, allowsBodyInGET: false)
    }

    func testThatTheKeptURLRemembersPassingTheTargetChecks() throws {
        let url = try "http://127.0.0.1:1/checked".asURL()
        XCTAssertFalse(ParsedURLCache.passedTargetChecks(url), "not checked yet")
        XCTAssertNil(check(url))
        XCTAssertTrue(ParsedURLCache.passedTargetChecks(url))
        XCTAssertNil(check(url), "passes again")
        let other = try XCTUnwrap(URL(string: "http://127.0.0.1:1/other"))
        XCTAssertFalse(ParsedURLCache.passedTargetChecks(other), "only the kept URL")
        XCTAssertNil(check(other))
        XCTAssertFalse(ParsedURLCache.passedTargetChecks(other), "a URL not kept is not remembered")
        _ = try "http://127.0.0.1:1/next".asURL()
        XCTAssertFalse(ParsedURLCache.passedTargetChecks(url), "a new entry starts unchecked")
    }

    /// An equal URL with storage of its own (parsed again, not through the cache) is the kept one,
    /// and a URL differing in one byte is not.
    func testThatAnEqualURLParsedSeparatelyIsTheKeptOne() throws {
        let string = "http://127.0.0.1:1/kept?page=2"
        let kept = try string.asURL()
        XCTAssertNil(check(kept))
        let reparsed = try XCTUnwrap(URL(string: string))
        XCTAssertEqual(reparsed, kept)
        XCTAssertTrue(ParsedURLCache.passedTargetChecks(reparsed), "equal, so it passed the same checks")
        let differs = try XCTUnwrap(URL(string: "http://127.0.0.1:1/kept?page=3"))
        XCTAssertFalse(ParsedURLCache.passedTargetChecks(differs))
    }

    func testThatAKeptURLThatFailsTheChecksIsRefusedEveryTime() throws {
        let longSocket = "http+unix://%2Ftmp%2F" + String(repeating: "s", count: 200) + "/x" // too long for an address
        for string in ["ftp://127.0.0.1:1/file", "mailto://someone@127.0.0.1", longSocket] {
            let url = try string.asURL()
            for round in 1...2 {
                guard case let .invalidURL(text)? = check(url) else { return XCTFail("\(string) passed, round \(round)") }
                XCTAssertEqual(text, string)
            }
            XCTAssertFalse(ParsedURLCache.passedTargetChecks(url), string)
        }
    }
}
