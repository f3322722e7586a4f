@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Response handlers that read the published outcome themselves (`Transfer.addQueuedHandler`): each
/// runs on its own queue, once, with the request's outcome — attached before the end or after it.
/// Through a fake engine (FakeEngine.swift): no libcurl, no network.
final class FakeEngineHandOffTests: XCTestCase {
    private let url = "http://fake.test/resource"

    func testThatQueuedHandlersRunOnTheirQueuesWithTheOutcome() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let key = DispatchSpecificKey<String>()
        let first = DispatchQueue(label: "first")
        let second = DispatchQueue(label: "second")
        first.setSpecific(key: key, value: "first")
        second.setSpecific(key: key, value: "second")
        let data = Awaited<(String?, Data?)>()
        let plain = Awaited<(String?, Data?, Int?)>()
        let request = session.request(url)
            .responseData(queue: first) { data.set((DispatchQueue.getSpecific(key: key), $0.value)) }
            .response(queue: second) { plain.set((DispatchQueue.getSpecific(key: key), $0.data, $0.response?.statusCode)) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        fake.respond(attempt, status: 200, headers: ["Content-Type": "text/plain"], body: Data("hello".utf8))
        let (dataQueue, body) = try XCTUnwrap(data.wait())
        XCTAssertEqual(dataQueue, "first")
        XCTAssertEqual(body, Data("hello".utf8))
        let (plainQueue, plainBody, status) = try XCTUnwrap(plain.wait())
        XCTAssertEqual(plainQueue, "second")
        XCTAssertEqual(plainBody, Data("hello".utf8))
        XCTAssertEqual(status, 200)

        // A handler attached after the end gets the same outcome, on its queue.
        let late = Awaited<(String?, Data?)>()
        request.responseData(queue: second) { late.set((DispatchQueue.getSpecific(key: key), $0.value)) }
        let (lateQueue, lateBody) = try XCTUnwrap(late.wait())
        XCTAssertEqual(lateQueue, "second")
        XCTAssertEqual(lateBody, Data("hello".utf8))
        XCTAssertNil(fake.nextAttempt(timeout: 0.2), "one attempt for every handler")
    }

    func testThatAQueuedHandlerSeesTheErrorOfAFailedRequest() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let done = Awaited<CurlfireError?>()
        session.request(url).validate(statusCode: [200]).responseData { done.set($0.error) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        fake.respond(attempt, status: 404)
        let error = try XCTUnwrap(done.wait())
        guard case .responseValidationFailed(reason: .unacceptableStatusCode(code: 404))? = error else {
            return XCTFail("expected unacceptableStatusCode(404), got \(String(describing: error))")
        }
    }
}
