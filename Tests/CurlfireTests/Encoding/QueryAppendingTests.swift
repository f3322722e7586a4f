@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// `URLRequest.appendPercentEncodedQuery` appends a query as text (QueryAppending.swift) where it used
/// to go through `URLComponents`; the URL it gives must be byte for byte the one the round trip gives.
final class QueryAppendingTests: XCTestCase {
    private let urls = [
        "http://fake.test/get",
        "http://fake.test/get?",
        "http://fake.test/get?a=1",
        "http://fake.test/get?a=1&b=%20",
        "http://fake.test/get#frag",
        "http://fake.test/get?#frag",
        "http://fake.test/get?a=1#frag",
        "http://fake.test/get#frag?not-a-query",
        "http://fake.test",
        "http://fake.test?x=1",
        "http://[::1]:8080/path",
        "http://user:password@fake.test/private?x=y",
        "http://bücher.example/straße?ö=ü#für",
        "https://FAKE.test:8443/a%3Fb/%23c",
        "http://127.0.0.1:1/x;p=1?y=(2)",
        "http://fake.test/a/../b/./c",
    ]
    private let queries = ["q=swift", "k=%C3%BC&q=a%20b%26c", "list%5B%5D=1&list%5B%5D=2", "flag=1"]

    /// The round trip the text form replaces, as it was written.
    private func roundTrip(_ url: URL, _ query: String) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        return components.url?.absoluteString
    }

    func testThatTheTextFormGivesTheSameURLAsTheComponentsRoundTrip() throws {
        for string in urls {
            let url = try XCTUnwrap(URL(string: string), string)
            for query in queries {
                let expected = try XCTUnwrap(roundTrip(url, query), "\(string) + \(query)")
                XCTAssertEqual(QueryAppending.appending(query, to: url.absoluteString), expected, "\(string) + \(query)")
                var request = URLRequest(url: url)
                try request.appendPercentEncodedQuery(query)
                XCTAssertEqual(request.url?.absoluteString, expected, "\(string) + \(query)")
                XCTAssertNil(request.url?.baseURL)
            }
        }
    }

    func testThatAQueryGoesBeforeTheFragmentAndAfterAnExistingQuery() {
        XCTAssertEqual(QueryAppending.appending("b=2", to: "http://h/p?a=1#f"), "http://h/p?a=1&b=2#f")
        XCTAssertEqual(QueryAppending.appending("b=2", to: "http://h/p?#f"), "http://h/p?b=2#f")
        XCTAssertEqual(QueryAppending.appending("b=2", to: "http://h/p#f?x"), "http://h/p?b=2#f?x")
        XCTAssertEqual(QueryAppending.appending("b=2", to: "http://h"), "http://h?b=2")
    }

    /// A request made from a URL relative to a base: the query lands on the URL the request holds,
    /// as the round trip put it.
    func testThatARequestFromARelativeURLGetsTheRoundTripsURL() throws {
        let base = try XCTUnwrap(URL(string: "http://fake.test/v1/"))
        let relative = try XCTUnwrap(URL(string: "users?x=1#f", relativeTo: base))
        var request = URLRequest(url: relative)
        let held = try XCTUnwrap(request.url)
        let expected = try XCTUnwrap(roundTrip(held, "q=1"))
        try request.appendPercentEncodedQuery("q=1")
        XCTAssertEqual(request.url?.absoluteString, expected)
        XCTAssertEqual(request.url?.absoluteString, "http://fake.test/v1/users?x=1&q=1#f")
    }
}
