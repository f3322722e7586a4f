import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// A dispatcher answers by looking at the request instead of a queue.
final class MockServerDispatcherTests: XCTestCase {
    func testThatADispatcherAnswersEachRequestByItsPath() async throws {
        let server = try MockServer { request in
            switch request.pathWithoutQuery {
            case "/users/1": .json(["name": "Ada"])
            case "/echo": MockResponse(headers: ["X-Method": request.method], body: request.body)
            default: .json(["error": "not found: \(request.path)"], statusCode: 404)
            }
        }
        let session = SessionManager()
        async let user = session.request(server.url("/users/1")).serializingDecodable([String: String].self).value
        async let echo = session.upload(Data("ping".utf8), to: server.url("/echo"), method: .put).serializingString().response
        async let missing = session.request(server.url("/nope?q=1")).validate().serializingData().response

        let (u, e, m) = try await (user, echo, missing)
        XCTAssertEqual(u, ["name": "Ada"])
        XCTAssertEqual(e.value, "ping")
        XCTAssertEqual(e.response?.value(forHTTPHeaderField: "x-method"), "PUT")
        XCTAssertEqual(m.response?.statusCode, 404)
        XCTAssertEqual(server.requestCount, 3)
        let paths = (0..<3).compactMap { _ in server.takeRequest(timeout: 1)?.path }
        XCTAssertEqual(Set(paths), ["/users/1", "/echo", "/nope?q=1"])
    }

    func testThatADispatcherIgnoresTheQueue() async throws {
        let server = try MockServer { _ in .text("from the dispatcher") }
        server.enqueue(.text("from the queue"))
        let value = try await SessionManager().request(server.url("/")).serializingString().value
        XCTAssertEqual(value, "from the dispatcher")
    }
}
