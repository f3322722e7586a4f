import Curlfire
import Foundation
import XCTest

/// Requests of changing shapes, one after another on one connection, each sent as it was asked for:
/// a pooled handle that kept its options (EasyHandleReuse.swift) never leaks one request's method,
/// URL, credentials or cookies state into the next.
final class EasyHandleReuseIntegrationTests: XCTestCase {
    private struct Echo: Decodable {
        let method: String
        let url: String
        let headers: [String: String]
    }

    private func echo(_ session: SessionManager, _ path: String, method: HTTPMethod = .get) async throws -> Echo {
        let response = await session.request(try Live.httpbin(path), method: method).validate()
            .serializingDecodable(Echo.self).response
        return try XCTUnwrap(response.value, "\(method.rawValue) \(path): \(String(describing: response.error))")
    }

    func testThatEveryRequestIsSentAsAskedAfterAnotherShape() async throws {
        var configuration = SessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        let session = SessionManager(configuration: configuration)
        for round in 0..<2 {
            let first = try await echo(session, "/anything?a=\(round)")
            XCTAssertEqual(first.method, "GET")
            XCTAssertTrue(first.url.hasSuffix("/anything?a=\(round)"), first.url)
            let second = try await echo(session, "/anything?b=\(round)")
            XCTAssertEqual(second.method, "GET")
            XCTAssertTrue(second.url.hasSuffix("/anything?b=\(round)"), second.url)
            let deleted = try await echo(session, "/anything?c=\(round)", method: .delete)
            XCTAssertEqual(deleted.method, "DELETE")
            let head = await session.request(try Live.httpbin("/anything"), method: .head).serializingData().response
            XCTAssertEqual(head.response?.statusCode, 200)
            XCTAssertEqual(head.data?.count ?? 0, 0)
            // Credentials go with their own request only.
            let authenticated = await session.request(try Live.httpbin("/basic-auth/user/pass\(round)"))
                .authenticate(user: "user", password: "pass\(round)").validate().serializingData().response
            XCTAssertNil(authenticated.error)
            let after = try await echo(session, "/anything?d=\(round)")
            XCTAssertEqual(after.method, "GET")
            XCTAssertNil(after.headers["Authorization"], "the credential of the request before leaked")
        }
    }

    func testThatCookiesStillWorkOnAHandleThatWasNotReset() async throws {
        let session = SessionManager()
        for round in 0..<3 {
            _ = await session.request(try Live.httpbin("/cookies/set?k\(round)=v\(round)")).serializingData().response
            let echoed = try await echo(session, "/anything?round=\(round)")
            let cookie = echoed.headers["Cookie"] ?? ""
            for earlier in 0...round { XCTAssertTrue(cookie.contains("k\(earlier)=v\(earlier)"), cookie) }
        }
    }
}
