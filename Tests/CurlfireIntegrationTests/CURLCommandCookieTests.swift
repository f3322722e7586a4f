import Curlfire
import Foundation
import XCTest

/// `debugDescription` as a curl command includes the cookies the session would send (`-b`).
final class CURLCommandCookieTests: XCTestCase {
    func testThatTheSessionsCookiesForTheURLAppearRedactedByDefault() async throws {
        let session = SessionManager()
        _ = await session.request(try Live.httpbin("/cookies/set?flavour=oat&size=large")).serializingData().response
        let other = try XCTUnwrap(HTTPCookie(properties: [.domain: "elsewhere.example", .path: "/", .name: "other", .value: "x"]))
        await session.cookieStore.setCookie(other)

        let request = session.request(try Live.httpbin("/anything"))
        let redacted = request.debugDescription
        XCTAssertTrue(redacted.contains("-b "), redacted)
        XCTAssertTrue(redacted.contains("flavour=***"), redacted)
        XCTAssertTrue(redacted.contains("size=***"), redacted)
        XCTAssertFalse(redacted.contains("oat"), redacted)
        XCTAssertFalse(redacted.contains("other="), "a cookie for another host is not sent: \(redacted)")

        let shown = request.cURLDescription(redactingCredentials: false)
        XCTAssertTrue(shown.contains("flavour=oat"), shown)
        XCTAssertTrue(shown.contains("size=large"), shown)

        // No cookies, or cookies switched off: no cookie option.
        let fresh = SessionManager().request(try Live.httpbin("/get"))
        XCTAssertFalse(fresh.debugDescription.contains("-b "), fresh.debugDescription)
        var configuration = SessionConfiguration()
        configuration.httpShouldSetCookies = false
        let disabled = SessionManager(configuration: configuration)
        _ = await disabled.request(try Live.httpbin("/cookies/set?flavour=oat")).serializingData().response
        XCTAssertFalse(disabled.request(try Live.httpbin("/get")).debugDescription.contains("-b "))
    }
}
