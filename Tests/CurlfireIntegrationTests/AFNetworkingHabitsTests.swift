import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Issue 30 point 7: AFNetworking habits — multipart `parameters:`, JSON without `null` keys, a
/// serialization queue apart from the callback queue, `request.progress`. Against MockServer.
final class AFNetworkingHabitsTests: XCTestCase {
    private var server: MockServer!

    override func setUpWithError() throws {
        server = try MockServer()
    }

    /// XCTest never frees its test-case instances: the server (its queued responses and recorded
    /// requests) is released here so that LeakSanitizer does not report them (`make sanitize-leaks`).
    override func tearDown() {
        server.shutdown()
        server = nil
    }

    // MARK: - Multipart parameters beside the constructing closure

    func testThatMultipartParametersArriveAsFieldsBeforeTheClosuresParts() async throws {
        // Given: AFNetworking's POST:parameters:constructingBodyWithBlock:
        server.enqueue(MockResponse(statusCode: 201))
        let parameters: Parameters = ["title": "Holiday é", "count": 3, "tags": ["a", "b"], "user": ["name": "ann"]]
        // When
        let response = await awaitResponse {
            SessionManager().upload(multipartFormData: { form in
                form.append(Data("PNGDATA".utf8), withName: "photo", fileName: "p.png", mimeType: "image/png")
            }, parameters: parameters, to: server.url("/upload")).response(completionHandler: $0)
        }
        // Then
        XCTAssertEqual(response.response?.statusCode, 201)
        let recorded = try XCTUnwrap(server.takeRequest(timeout: 5))
        let body = try XCTUnwrap(String(data: recorded.body, encoding: .utf8))
        func field(_ name: String, _ value: String) -> Range<String.Index>? {
            body.range(of: "Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        let count = try XCTUnwrap(field("count", "3"), body)
        let tagA = try XCTUnwrap(field("tags[]", "a"), body)
        let tagB = try XCTUnwrap(field("tags[]", "b"), body)
        let title = try XCTUnwrap(field("title", "Holiday é"), body)
        let user = try XCTUnwrap(field("user[name]", "ann"), body)
        let photo = try XCTUnwrap(body.range(of: "name=\"photo\"; filename=\"p.png\""), body)
        XCTAssertTrue(count.lowerBound < tagA.lowerBound && tagA.lowerBound < tagB.lowerBound
                      && tagB.lowerBound < title.lowerBound && title.lowerBound < user.lowerBound, "sorted keys")
        XCTAssertLessThan(user.lowerBound, photo.lowerBound, "parameters first, then the closure's parts")
        XCTAssertTrue(recorded.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") ?? false)
    }

    func testThatAnUnwritableMultipartParameterFailsWithNothingSent() async throws {
        let response = await awaitResponse {
            SessionManager().upload(multipartFormData: { _ in }, parameters: ["bad": Double.nan],
                                    to: server.url("/upload")).response(completionHandler: $0)
        }
        guard case .parameterEncodingFailed(reason: .unencodableValue(key: "bad", _))? = response.error else {
            return XCTFail("\(String(describing: response.error))")
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    // MARK: - removesKeysWithNullValues

    func testThatNullValuedKeysAreRemovedAtEveryDepth() async throws {
        let text = #"{"a": null, "b": {"c": null, "d": 1}, "e": [{"f": null, "g": "x"}, null], "h": "kept"}"#
        server.enqueue(.text(text))
        server.enqueue(.text(text))
        let cleaned = await awaitResponse {
            Curlfire.request(server.url("/nulls")).responseJSON(removesKeysWithNullValues: true, completionHandler: $0)
        }
        let object = try XCTUnwrap(cleaned.value as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["b", "e", "h"])
        XCTAssertEqual(object["b"] as? [String: Int], ["d": 1])
        let array = try XCTUnwrap(object["e"] as? [Any])
        XCTAssertEqual(array.first as? [String: String], ["g": "x"])
        XCTAssertTrue(array.last is NSNull, "null elements of arrays stay, as in AFNetworking")
        let untouched = await awaitResponse {
            Curlfire.request(server.url("/nulls")).responseJSON(removesKeysWithNullValues: false, completionHandler: $0)
        }
        XCTAssertTrue((untouched.value as? [String: Any])?["a"] is NSNull)
    }

    // MARK: - serializationQueue

    func testThatASlowSerializerDoesNotHoldUpAnotherRequestsCompletion() async throws {
        // Given: a serializer that does not finish until another request's completion has run on
        // the callback queue (or 20 s pass). On one queue for both, that completion would wait.
        let session = SessionManager(serializationQueue: DispatchQueue(label: "test.serialization"))
        server.enqueue(.text("heavy"))
        server.enqueue(.text("light"))
        let otherCompleted = DispatchSemaphore(value: 0)
        let serializing = DispatchSemaphore(value: 0)
        let sawOtherFirst = Recorder<Bool>()
        let slow = DataResponseSerializer<String> { _, _, data, _ in
            serializing.signal()
            sawOtherFirst.append(otherCompleted.wait(timeout: .now() + 20) == .success)
            return .success(String(decoding: data ?? Data(), as: UTF8.self))
        }
        // When
        let heavy = ResponseWaiter<DataResponse<String>>()
        session.request(server.url("/heavy")).response(responseSerializer: slow) { heavy.fulfil($0) }
        XCTAssertEqual(serializing.wait(timeout: .now() + 10), .success, "the slow serializer started")
        let light = await awaitResponse { session.request(server.url("/light")).response(completionHandler: $0) }
        otherCompleted.signal()
        let heavyResponse = await heavy.value
        // Then
        XCTAssertEqual(light.data, Data("light".utf8))
        XCTAssertEqual(heavyResponse.value, "heavy")
        XCTAssertEqual(sawOtherFirst.all, [true], "the other completion ran while the serializer was busy")
    }

    func testThatWithASerializationQueueHandlersStillRunInAttachOrderOnTheCallbackQueue() async throws {
        let callback = DispatchQueue(label: "test.callback")
        let session = SessionManager(callbackQueue: callback, serializationQueue: DispatchQueue(label: "test.serial"))
        server.enqueue(.text("{}"))
        let order = Recorder<String>()
        let done = ResponseWaiter<Void>()
        session.request(server.url("/order"))
            .responseJSON { _ in dispatchPrecondition(condition: .onQueue(callback)); order.append("json") }
            .responseString { _ in dispatchPrecondition(condition: .onQueue(callback)); order.append("string") }
            .response { _ in order.append("plain") }
            .responseData { _ in order.append("data"); done.fulfil(()) }
        await done.value
        XCTAssertEqual(order.all.filter { $0 != "plain" }, ["json", "string", "data"])
    }

    // MARK: - request.progress

    func testThatProgressShowsTheBytesOfTheResponse() async throws {
        server.enqueue(MockResponse(body: Data(count: 100_000)))
        let request = SessionManager().request(server.url("/progress"))
        let before = request.progress
        XCTAssertEqual(before.completedUnitCount, 0)
        _ = await awaitResponse { request.responseData(completionHandler: $0) }
        let after = request.progress
        XCTAssertEqual(after.completedUnitCount, 100_000)
        XCTAssertEqual(after.totalUnitCount, 100_000)
        XCTAssertEqual(after.fractionCompleted, 1, accuracy: 0.0001)
        XCTAssertEqual(before.completedUnitCount, 0, "a snapshot does not change")
    }

    func testThatProgressReadBeforeTheStartMovesWhileTheBodyArrives() async throws {
        server.enqueue(MockResponse(body: Data(count: 120_000)).throttled(bytesPerSecond: 60_000))
        let request = SessionManager().request(server.url("/slow-progress"))
        XCTAssertEqual(request.progress.totalUnitCount, -1, "unknown before the head")
        let done = ResponseWaiter<Void>()
        request.response { _ in done.fulfil(()) }
        var sawPartial = false
        let deadline = Date().addingTimeInterval(20)
        while !done.isFulfilled, Date() < deadline {
            let now = request.progress
            if now.completedUnitCount > 0, now.completedUnitCount < 120_000, now.totalUnitCount == 120_000 {
                sawPartial = true
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        await done.value
        XCTAssertTrue(sawPartial, "a read during the transfer showed part of the body")
        XCTAssertEqual(request.progress.completedUnitCount, 120_000)
    }

    func testThatUploadProgressShowsTheBytesSent() async throws {
        server.enqueue(MockResponse(statusCode: 204))
        let body = Data(count: 50_000)
        let request = SessionManager().upload(body, to: server.url("/up"))
        _ = await awaitResponse { request.response(completionHandler: $0) }
        XCTAssertEqual(request.uploadProgress.completedUnitCount, 50_000)
        XCTAssertEqual(request.uploadProgress.totalUnitCount, 50_000)
    }

    func testThatADownloadsProgressShowsTheFile() async throws {
        server.enqueue(MockResponse(body: Data(count: 20_000)))
        let request = SessionManager().download(server.url("/file"))
        let response = await awaitResponse { request.response(completionHandler: $0) }
        XCTAssertEqual(request.progress.completedUnitCount, 20_000)
        if let file = response.temporaryURL { try? FileManager.default.removeItem(at: file) }
    }
}
