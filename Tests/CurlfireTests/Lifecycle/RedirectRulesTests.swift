@testable import Curlfire
import Foundation
import XCTest

/// The by-hand redirect rules and the Netscape cookie line conversions, without a network.
final class RedirectRulesTests: XCTestCase {
    private func response(_ status: Int, location: String?, url: String = "http://a.test/start") -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: location.map { ["Location": $0] } ?? [:])!
    }

    private func post(_ url: String = "http://a.test/start") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data("body".utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        request.setValue("a=b", forHTTPHeaderField: "Cookie")
        return request
    }

    func testThatMethodsFollowTheRulesOfEachStatus() throws {
        for status in [301, 302, 303] {
            let next = try XCTUnwrap(RedirectRules.redirect(from: post(), response: response(status, location: "/next")))
            XCTAssertEqual(next.request.httpMethod, "GET", "\(status)")
            XCTAssertFalse(next.keepsBody)
            XCTAssertNil(next.request.httpBody)
            XCTAssertNil(next.request.value(forHTTPHeaderField: "Content-Type"))
        }
        for status in [307, 308] {
            let next = try XCTUnwrap(RedirectRules.redirect(from: post(), response: response(status, location: "/next")))
            XCTAssertEqual(next.request.httpMethod, "POST", "\(status)")
            XCTAssertTrue(next.keepsBody)
            XCTAssertEqual(next.request.value(forHTTPHeaderField: "Content-Type"), "text/plain")
        }
        var put = post()
        put.httpMethod = "PUT"
        XCTAssertEqual(RedirectRules.redirect(from: put, response: response(302, location: "/n"))?.request.httpMethod, "PUT")
        var head = URLRequest(url: URL(string: "http://a.test/")!)
        head.httpMethod = "HEAD"
        XCTAssertEqual(RedirectRules.redirect(from: head, response: response(303, location: "/n"))?.request.httpMethod, "HEAD")
    }

    func testThatLocationsResolveAndNonRedirectsAreIgnored() {
        XCTAssertEqual(RedirectRules.redirect(from: post(), response: response(302, location: "next?q=1"))?.request.url?.absoluteString,
                       "http://a.test/next?q=1")
        XCTAssertNil(RedirectRules.redirect(from: post(), response: response(302, location: nil)))
        XCTAssertNil(RedirectRules.redirect(from: post(), response: response(304, location: "/x")))
        XCTAssertNil(RedirectRules.redirect(from: post(), response: response(302, location: "ftp://a.test/file")))
    }

    func testThatCredentialsStayWithTheirOrigin() throws {
        let same = try XCTUnwrap(RedirectRules.redirect(from: post(), response: response(307, location: "http://A.test:80/x")))
        XCTAssertEqual(same.request.value(forHTTPHeaderField: "Authorization"), "Bearer t")
        for other in ["http://b.test/x", "https://a.test/x", "http://a.test:8080/x"] {
            let next = try XCTUnwrap(RedirectRules.redirect(from: post(), response: response(307, location: other)))
            XCTAssertNil(next.request.value(forHTTPHeaderField: "Authorization"), other)
            XCTAssertNil(next.request.value(forHTTPHeaderField: "Cookie"), other)
        }
        var moved = post()
        moved.url = URL(string: "http://evil.test/")
        let stripped = RedirectRules.stripForwardedCredentials(moved, original: post())
        XCTAssertNil(stripped.value(forHTTPHeaderField: "Authorization"))
        var ownCredential = moved
        ownCredential.setValue("Bearer other", forHTTPHeaderField: "Authorization")
        XCTAssertEqual(RedirectRules.stripForwardedCredentials(ownCredential, original: post())
            .value(forHTTPHeaderField: "Authorization"), "Bearer other", "a header the handler set itself stays")
    }

    func testThatNetscapeCookieLinesRoundTrip() throws {
        let expires = Date(timeIntervalSince1970: 2_000_000_000)
        let cookie = try XCTUnwrap(HTTPCookie(properties: [
            .domain: ".example.test", .path: "/app", .name: "n", .value: "v", .secure: "TRUE", .expires: expires,
            HTTPCookiePropertyKey("HttpOnly"): "TRUE",
        ]))
        let line = CookieLine.netscapeLine(for: cookie)
        XCTAssertEqual(line, "#HttpOnly_.example.test\tTRUE\t/app\tTRUE\t2000000000\tn\tv")
        let back = try XCTUnwrap(CookieLine.cookie(fromNetscapeLine: line))
        XCTAssertEqual(back.domain, ".example.test")
        XCTAssertEqual(back.path, "/app")
        XCTAssertTrue(back.isSecure)
        XCTAssertTrue(back.isHTTPOnly)
        XCTAssertEqual(back.expiresDate, expires)
        let session = try XCTUnwrap(CookieLine.cookie(fromNetscapeLine: "127.0.0.1\tFALSE\t/\tFALSE\t0\ts\t1"))
        XCTAssertNil(session.expiresDate)
        XCTAssertNil(CookieLine.cookie(fromNetscapeLine: "# comment"))
    }
}
