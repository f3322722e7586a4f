import CurlfireCLIKit
import XCTest

/// httpie's item syntax: separators, precedence, escapes and refusals.
final class RequestItemTests: XCTestCase {
    func testThatEachSeparatorGivesItsKind() throws {
        XCTAssertEqual(try RequestItem.parse("X-Trace:42"), .header(name: "X-Trace", value: "42"))
        XCTAssertEqual(try RequestItem.parse("Accept: text/html"), .header(name: "Accept", value: "text/html"))
        XCTAssertEqual(try RequestItem.parse("User-Agent:"), .header(name: "User-Agent", value: ""))
        XCTAssertEqual(try RequestItem.parse("q==a b"), .query(name: "q", value: "a b"))
        XCTAssertEqual(try RequestItem.parse("name=Ada"), .field(name: "name", value: "Ada"))
        XCTAssertEqual(try RequestItem.parse("n:=3"), .jsonField(name: "n", json: "3"))
        XCTAssertEqual(try RequestItem.parse("tags:=[\"a\",1]"), .jsonField(name: "tags", json: "[\"a\",1]"))
        XCTAssertEqual(try RequestItem.parse("photo@/tmp/cat.jpg"), .file(name: "photo", path: "/tmp/cat.jpg"))
        XCTAssertEqual(try RequestItem.parse("bio=@bio.txt"), .fieldFromFile(name: "bio", path: "bio.txt"))
        XCTAssertEqual(try RequestItem.parse("doc:=@doc.json"), .jsonFromFile(name: "doc", path: "doc.json"))
    }

    func testThatTheLeftmostSeparatorWinsAndValuesKeepLaterSeparators() throws {
        XCTAssertEqual(try RequestItem.parse("url=http://x/?a=b"), .field(name: "url", value: "http://x/?a=b"))
        XCTAssertEqual(try RequestItem.parse("a==b==c"), .query(name: "a", value: "b==c"))
        XCTAssertEqual(try RequestItem.parse("Host:a:b"), .header(name: "Host", value: "a:b"))
        XCTAssertEqual(try RequestItem.parse("email=a@b.c"), .field(name: "email", value: "a@b.c"))
        XCTAssertEqual(try RequestItem.parse("e=="), .query(name: "e", value: ""))
    }

    func testThatABackslashEscapesASeparatorInTheName() throws {
        XCTAssertEqual(try RequestItem.parse("a\\=b=c"), .field(name: "a=b", value: "c"))
        XCTAssertEqual(try RequestItem.parse("a\\:b==c"), .query(name: "a:b", value: "c"))
    }

    func testThatMalformedItemsAreRefused() {
        XCTAssertThrowsError(try RequestItem.parse("plain"))
        XCTAssertThrowsError(try RequestItem.parse("=value"))
        XCTAssertThrowsError(try RequestItem.parse("Bad Header:x"))
        XCTAssertThrowsError(try RequestItem.parse("n:={broken")) { error in
            XCTAssertTrue("\(error)".contains("not valid JSON"), "\(error)")
        }
    }

    func testThatTheMethodIsRecognisedOnlyBeforeAURL() throws {
        let withMethod = try RequestTarget.split(["put", "example.org", "a=1"])
        XCTAssertEqual(withMethod.method, "PUT")
        XCTAssertEqual(withMethod.url, "example.org")
        XCTAssertEqual(withMethod.items, ["a=1"])
        XCTAssertEqual(try RequestTarget.split(["PROPFIND", "example.org"]).method, "PROPFIND")
        let urlOnly = try RequestTarget.split(["localhost"])
        XCTAssertNil(urlOnly.method)
        XCTAssertEqual(urlOnly.url, "localhost")
        let lowerHost = try RequestTarget.split(["localhost", "a=1"])
        XCTAssertNil(lowerHost.method, "a lower-case word that is not a method is the URL")
        XCTAssertThrowsError(try RequestTarget.split([]))
    }

    func testThatURLShorthandsGainAScheme() throws {
        XCTAssertEqual(try RequestTarget.normalizedURL("localhost:8080/get").absoluteString, "http://localhost:8080/get")
        XCTAssertEqual(try RequestTarget.normalizedURL(":3000/x").absoluteString, "http://localhost:3000/x")
        XCTAssertEqual(try RequestTarget.normalizedURL(":/x").absoluteString, "http://localhost/x")
        XCTAssertEqual(try RequestTarget.normalizedURL("https://h/p").absoluteString, "https://h/p")
        XCTAssertThrowsError(try RequestTarget.normalizedURL("http://"))
    }

    func testThatQueryItemsAreEncodedAndAppended() throws {
        let url = try RequestTarget.normalizedURL("h/p?x=1#frag", query: [("a b", "c&d"), ("é", "=")])
        XCTAssertEqual(url.absoluteString, "http://h/p?x=1&a%20b=c%26d&%C3%A9=%3D#frag")
        XCTAssertEqual(try RequestTarget.normalizedURL("h/p", query: [("k", "v")]).absoluteString, "http://h/p?k=v")
    }
}
