@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// When and by whom a request's `URLRequest` is read must not change what is read: read before the
/// start, only after the end, never by the user, or by two threads at once, the request value, the
/// attempt's plan and every delivered response (`DefaultDataResponse`, a validated `DataResponse`,
/// the async API's) carry the same URL text, method, headers, timeout and body as the request the
/// user asked for. The safety net for building the `URLRequest` only when read (issue 24, point 4).
/// Through the fake engine (FakeEngine.swift): no libcurl, no network.
final class FakeEngineRequestReadingTests: XCTestCase {
    private let string = "http://fake.test/items?page=2"

    /// What `request(string, method:headers:)` is documented to build, written out with Foundation.
    private func expected(method: HTTPMethod = .get, headers: [String: String] = [:],
                          timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(url: URL(string: string)!)
        request.httpMethod = method.rawValue
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = timeout
        return request
    }

    /// Three requests, each read at a different moment (before the start, only after the end, never
    /// by the user before its response): the value, the plan and the response agree in all three.
    func testThatTheRequestIsTheSameWhetherReadBeforeAfterOrNever() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let want = expected(method: .delete, headers: ["X-Trace": "1"],
                            timeout: session.configuration.timeoutIntervalForRequest)
        for moment in ["before", "after", "never"] {
            let request = session.request(string, method: .delete, headers: ["X-Trace": "1"])
            if moment == "before" { assertSameRequestFields(request.request, want, "read before the start") }
            let delivered = Awaited<DefaultDataResponse>()
            request.response { delivered.set($0) }
            let attempt = try XCTUnwrap(fake.nextAttempt(), moment)
            XCTAssertEqual(attempt.plan.requestURLText, string, moment)
            XCTAssertEqual(attempt.plan.method, "DELETE", moment)
            XCTAssertTrue(attempt.plan.headerLines.contains("X-Trace: 1"), "\(moment): \(attempt.plan.headerLines)")
            fake.respond(attempt, status: 200)
            let response = try XCTUnwrap(delivered.wait(), moment)
            assertSameRequestFields(response.request, want, "delivered, \(moment)")
            if moment == "after" { assertSameRequestFields(request.request, want, "read only after the end") }
        }
    }

    /// Many threads read `request` of fresh requests at once, before and while they start: every
    /// read gives the whole request, none a half-built or missing one.
    func testThatThreadsReadingTheRequestAtOnceAllSeeIt() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.startRequestsImmediately = false
        let want = expected(headers: ["Accept": "text/plain"], timeout: session.configuration.timeoutIntervalForRequest)
        let seen = Recorder<URLRequest?>()
        for _ in 0..<20 {
            let request = session.request(string, headers: ["Accept": "text/plain"])
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index == 0 { request.resume() }
                for _ in 0..<5 { seen.append(request.request) }
            }
            let attempt = try XCTUnwrap(fake.nextAttempt())
            fake.respond(attempt, status: 204)
        }
        XCTAssertEqual(seen.all.count, 20 * 4 * 5)
        for request in seen.all { assertSameRequestFields(request, want, "read from one of four threads") }
    }

    /// The response types that validators and serializers make (`DataResponse` after `validate()`,
    /// and the async API's) carry the same request as `DefaultDataResponse`, for `request(URL)` too.
    func testThatValidatedAndAsyncResponsesCarryTheRequest() async throws {
        let fake = FakeEngine()
        let session = fake.session()
        let want = expected(method: .put, headers: ["X-A": "b"], timeout: session.configuration.timeoutIntervalForRequest)

        let delivered = Awaited<DataResponse<Data>>()
        session.request(URL(string: string)!, method: .put, headers: ["X-A": "b"]).validate()
            .responseData { delivered.set($0) }
        let first = try XCTUnwrap(fake.nextAttempt())
        fake.respond(first, status: 200, body: Data("ok".utf8))
        let validated = try XCTUnwrap(delivered.wait())
        XCTAssertEqual(validated.result.value, Data("ok".utf8))
        assertSameRequestFields(validated.request, want, "validated DataResponse")

        let task = session.request(string, method: .put, headers: ["X-A": "b"]).serializingData()
        async let awaited = task.response
        let second = try XCTUnwrap(fake.nextAttempt())
        fake.respond(second, status: 200, body: Data("ok".utf8))
        let response = await awaited
        XCTAssertEqual(response.result.value, Data("ok".utf8))
        assertSameRequestFields(response.request, want, "async DataResponse")
    }
}
