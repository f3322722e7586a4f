import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// `MockResponse.json(text:)` and `.json(object:)`: JSON bodies from raw text and from `[String: Any]`,
/// served by a real MockServer and read back through Curlfire's serializers.
final class MockResponseJSONTests: XCTestCase {
    func testThatRawJSONTextIsSentAsGiven() async throws {
        let server = try MockServer()
        let text = #"{"id": 7, "tags": ["a", "b"], "owner": null}"#
        server.enqueue(.json(text: text, statusCode: 201))
        let response = await SessionManager().request(server.url("/items")).serializingData().response

        XCTAssertEqual(response.response?.statusCode, 201)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(response.value.map { String(decoding: $0, as: UTF8.self) }, text)
    }

    func testThatMalformedJSONTextReachesTheSerializerAsAJSONFailure() async throws {
        let server = try MockServer()
        server.enqueue(.json(text: #"{"id": 7,"#))
        let response = await SessionManager().request(server.url("/broken")).serializingJSON().response

        guard case .responseSerializationFailed(reason: .jsonSerializationFailed)? = response.error else {
            return XCTFail("expected a JSON serialization failure, got \(response.debugDescription)")
        }
    }

    func testThatADictionaryIsSerializedWithSortedKeys() async throws {
        let server = try MockServer()
        let object: [String: Any] = ["name": "Ada", "id": 7, "admin": true, "tags": ["a", "b"], "owner": NSNull(),
                                     "nested": ["b": 2, "a": 1]]
        server.enqueue(.json(object: object))
        let response = await SessionManager().request(server.url("/user")).serializingData().response

        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(response.value.map { String(decoding: $0, as: UTF8.self) },
                       #"{"admin":true,"id":7,"name":"Ada","nested":{"a":1,"b":2},"owner":null,"tags":["a","b"]}"#)
    }

    func testThatAnArrayOfDictionariesIsAccepted() async throws {
        let server = try MockServer()
        server.enqueue(.json(object: [["id": 1], ["id": 2]], statusCode: 202))
        let response = await SessionManager().request(server.url("/list")).serializingJSON().response

        XCTAssertEqual(response.response?.statusCode, 202)
        let list = try XCTUnwrap(response.value as? [[String: Any]])
        XCTAssertEqual(list.compactMap { $0["id"] as? Int }, [1, 2])
    }

    func testThatAValueThatIsNotJSONBecomesAVisible500() async throws {
        let server = try MockServer()
        server.enqueue(.json(object: ["when": Date()]))
        server.enqueue(.json(object: "just a string"))
        let session = SessionManager()

        for path in ["/date", "/string"] {
            let response = await session.request(server.url(path)).serializingString().response
            XCTAssertEqual(response.response?.statusCode, 500, path)
            XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8", path)
            XCTAssertTrue(response.value?.contains("not a JSON object") ?? false, "\(path): \(response.value ?? "nil")")
        }
    }
}
