import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// A user's test scripts answers and asserts on what Curlfire really sent.
final class MockServerRecordingTests: XCTestCase {
    struct User: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    func testThatAScriptedJSONResponseIsDecodedAndTheRequestIsRecorded() async throws {
        let server = try MockServer()
        server.enqueue(.json(User(id: 7, name: "Ada")))

        let user = try await SessionManager().request(server.url("/users/7"), parameters: ["expand": "true", "page": 2],
                                                      headers: ["X-Trace-ID": "abc123"])
            .validate().serializingDecodable(User.self).value

        XCTAssertEqual(user, User(id: 7, name: "Ada"))
        let request = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/users/7?expand=true&page=2")
        XCTAssertEqual(request.pathWithoutQuery, "/users/7")
        XCTAssertEqual(request.queryItems.map(\.name), ["expand", "page"])
        XCTAssertEqual(request.headers["x-trace-id"], "abc123", "lookup ignores case")
        XCTAssertEqual(request.header("X-TRACE-ID"), "abc123")
        XCTAssertNotNil(request.headers["user-agent"])
        XCTAssertTrue(request.body.isEmpty)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatErrorStatusesWithJSONBodiesReachValidation() async throws {
        let server = try MockServer()
        server.enqueue(.json(["error": "no such user"], statusCode: 404))
        server.enqueue(.json(["error": "database down"], statusCode: 500))
        let session = SessionManager()

        let missing = await session.request(server.url("/users/1")).validate().serializingData().response
        let broken = await session.request(server.url("/users/2")).serializingDecodable([String: String].self).response

        XCTAssertEqual(missing.response?.statusCode, 404)
        guard case .responseValidationFailed(reason: .unacceptableStatusCode(code: 404))? = missing.error else {
            return XCTFail("expected a 404 validation failure, got \(String(describing: missing.error))")
        }
        XCTAssertEqual(missing.data.flatMap { String(data: $0, encoding: .utf8) }, #"{"error":"no such user"}"#)
        XCTAssertEqual(broken.response?.statusCode, 500)
        XCTAssertEqual(broken.value, ["error": "database down"], "without validate() the body still decodes")
        XCTAssertEqual(server.takeRequest()?.path, "/users/1")
        XCTAssertEqual(server.takeRequest()?.path, "/users/2", "requests come back in arrival order")
    }

    func testThatAnEmptyQueueAnswersAClear500() async throws {
        let server = try MockServer()
        let response = await SessionManager().request(server.url("/unscripted")).serializingString().response
        XCTAssertEqual(response.response?.statusCode, 500)
        XCTAssertTrue(response.value?.hasPrefix("MockServer: no response enqueued for GET /unscripted") ?? false,
                      response.value ?? "no body")
    }

    func testThatAJSONPostBodyIsRecorded() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(statusCode: 201))
        let response = await SessionManager().request(server.url("/users"), method: .post,
                                                      parameters: ["name": "Grace", "id": 8],
                                                      encoding: JSONEncoding.default)
            .validate().serializingData().response
        XCTAssertEqual(response.response?.statusCode, 201, "\(response.debugDescription)")

        let request = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.headers["content-type"], "application/json")
        XCTAssertEqual(try request.decodeBody(User.self), User(id: 8, name: "Grace"))
        XCTAssertEqual(request.headers["Content-Length"], "\(request.body.count)")
    }

    func testThatAMultipartUploadBodyIsRecorded() async throws {
        let server = try MockServer()
        server.enqueue(.text("stored"))
        let file = Data("name,score\nada,10\n".utf8)
        let response = await SessionManager().upload(multipartFormData: { form in
            form.append(Data("Ada".utf8), withName: "author")
            form.append(file, withName: "report", fileName: "scores.csv", mimeType: "text/csv")
        }, to: server.url("/reports")).serializingData().response
        XCTAssertNil(response.error, "\(response.debugDescription)")

        let request = try XCTUnwrap(server.takeRequest())
        let contentType = try XCTUnwrap(request.headers["Content-Type"])
        XCTAssertTrue(contentType.hasPrefix("multipart/form-data; boundary="), contentType)
        let body = try XCTUnwrap(request.bodyString)
        XCTAssertTrue(body.contains("Content-Disposition: form-data; name=\"author\"\r\n\r\nAda\r\n"), body)
        XCTAssertTrue(body.contains("name=\"report\"; filename=\"scores.csv\"\r\nContent-Type: text/csv\r\n\r\nname,score\nada,10\n"), body)
    }

    func testThatKeepAliveSendsTwoRequestsOnOneConnection() async throws {
        let server = try MockServer()
        server.enqueue(.text("one"))
        server.enqueue(.text("two"))
        let session = SessionManager()
        let first = try await session.request(server.url("/1")).serializingString().value
        let second = try await session.request(server.url("/2")).serializingString().value
        XCTAssertEqual([first, second], ["one", "two"])

        let a = try XCTUnwrap(server.takeRequest())
        let b = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(a.connectionIndex, b.connectionIndex, "the second request reused the connection")
        XCTAssertEqual([a.sequenceNumber, b.sequenceNumber], [0, 1])
        XCTAssertEqual(server.connectionCount, 1)
    }

    func testThatConnectionCloseStartsANewConnection() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(headers: ["Connection": "close"]))
        server.enqueue(MockResponse())
        let session = SessionManager()
        _ = await session.request(server.url("/1")).serializingData().response
        _ = await session.request(server.url("/2")).serializingData().response
        let a = try XCTUnwrap(server.takeRequest())
        let b = try XCTUnwrap(server.takeRequest())
        XCTAssertNotEqual(a.connectionIndex, b.connectionIndex)
    }

    func testThatALargeUploadWithExpectContinueArrivesWhole() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(statusCode: 204))
        var payload = Data(count: 8 * 1024 * 1024)
        payload.withUnsafeMutableBytes { bytes in
            for index in stride(from: 0, to: bytes.count, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index >> 12) }
        }
        let response = await SessionManager().upload(payload, to: server.url("/upload"),
                                                     headers: ["Expect": "100-continue"])
            .serializingData().response
        XCTAssertEqual(response.response?.statusCode, 204, "\(response.debugDescription)")
        // That `100 Continue` is sent before the body is read is shown on the wire in MockServerWireTests.

        let request = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(request.headers["expect"], "100-continue")
        XCTAssertEqual(request.body.count, payload.count)
        XCTAssertTrue(request.body == payload)
    }

    func testThatTakeRequestTimesOutWhenNothingArrives() throws {
        let server = try MockServer()
        let started = Date()
        XCTAssertNil(server.takeRequest(timeout: 0.2))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.19)
        XCTAssertEqual(server.requestCount, 0)
    }
}
