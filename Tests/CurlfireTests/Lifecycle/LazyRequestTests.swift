@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// `LazyRequest`: which requests stay in their plain form from `request(String)` to the delivered
/// response, and that the `URLRequest` a plain form builds is the one the eager path builds. The
/// end-to-end contract (same request for every reader) is `FakeEngineRequestBuildingTests` and
/// `FakeEngineRequestReadingTests`; these pin that nothing on the way builds it.
final class LazyRequestTests: XCTestCase {
    private func isPlain(_ head: LazyRequest?) -> Bool {
        if case .plain? = head { return true } else { return false }
    }

    func testThatThePlainFormBuildsWhatTheEagerPathBuilds() throws {
        let session = FakeEngine().session()
        for method in [HTTPMethod.get, .head, .delete, .post] {
            for string in ["http://fake.test/a?b=1#c", "http://[::1]:8080/x", "http://bücher.example/straße"] {
                let eager = try session.makeURLRequest(string, method: method, headers: nil, modifier: nil)
                guard case let .success(head) = session.plainHead(string, method: method) else {
                    return XCTFail("\(string) is refused")
                }
                XCTAssertTrue(isPlain(head))
                let built = head.urlRequest
                XCTAssertEqual(built.url?.absoluteString, eager.url?.absoluteString)
                XCTAssertEqual(built.httpMethod, eager.httpMethod)
                XCTAssertEqual(built.allHTTPHeaderFields ?? [:], eager.allHTTPHeaderFields ?? [:])
                XCTAssertEqual(built.timeoutInterval, eager.timeoutInterval)
                XCTAssertEqual(built.cachePolicy, eager.cachePolicy)
                XCTAssertEqual(built.httpShouldHandleCookies, eager.httpShouldHandleCookies)
                XCTAssertNil(built.httpBody)
                // The parts the engine reads without building it.
                XCTAssertEqual(head.url, eager.url)
                XCTAssertEqual(head.httpMethod, eager.httpMethod)
                XCTAssertEqual(head.timeoutInterval, eager.timeoutInterval)
                XCTAssertEqual(head.allHTTPHeaderFields ?? [:], eager.allHTTPHeaderFields ?? [:])
                XCTAssertEqual(head.httpShouldHandleCookies, eager.httpShouldHandleCookies)
                XCTAssertNil(head.value(forHTTPHeaderField: "Accept"))
            }
        }
    }

    func testThatAMalformedURLFailsAsTheEagerPathFails() {
        let session = FakeEngine().session()
        for string in ["", "not a url", "http://", "/relative"] {
            guard case let .failure(.invalidURL(url)) = session.plainHead(string, method: .get) else {
                return XCTFail("\(string) is accepted")
            }
            XCTAssertEqual(url, string)
        }
    }

    /// Only `request(String)` / `request(URL)` with nothing to encode, no headers and no modifier is
    /// plain; everything else is built at once as before.
    func testWhichRequestsStartPlain() {
        let session = FakeEngine().session()
        session.startRequestsImmediately = false
        let url = "http://fake.test/x"
        XCTAssertTrue(isPlain(session.request(url).core.definition.head.value))
        XCTAssertTrue(isPlain(session.request(URL(string: url)!, method: .put).core.definition.head.value))
        XCTAssertFalse(isPlain(session.request(url, headers: ["A": "b"]).core.definition.head.value))
        XCTAssertFalse(isPlain(session.request(url, parameters: ["q": "1"]).core.definition.head.value))
        XCTAssertFalse(isPlain(session.request(url, encoding: JSONEncoding.default).core.definition.head.value))
        XCTAssertFalse(isPlain(session.request(url, requestModifier: { $0.timeoutInterval = 5 }).core.definition.head.value))
        XCTAssertFalse(isPlain(session.request(URLRequest(url: URL(string: url)!)).core.definition.head.value))
    }

    /// With no adapter, no cache and no monitor, the hop, the attempt's plan, the outcome and the
    /// delivered responses all hold the plain form: nothing on the way built a `URLRequest`.
    func testThatNothingOnThePlainPathBuildsTheRequest() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let plain = Awaited<DefaultDataResponse>()
        let serialized = Awaited<DataResponse<Data>>()
        let request = session.request("http://fake.test/plain")
        request.response { plain.set($0) }
        request.validate(statusCode: 200..<300).validate().responseData { serialized.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertTrue(isPlain(attempt.plan.head), "the plan")
        fake.respond(attempt, status: 200, body: Data("ok".utf8))
        let response = try XCTUnwrap(plain.wait())
        let data = try XCTUnwrap(serialized.wait())
        XCTAssertTrue(isPlain(request.core.transfer.finishedOutcome?.head), "the outcome")
        XCTAssertTrue(isPlain(response.head), "DefaultDataResponse")
        XCTAssertTrue(isPlain(data.head), "DataResponse")
        XCTAssertEqual(data.result.value, Data("ok".utf8))
        XCTAssertEqual(response.request?.url?.absoluteString, "http://fake.test/plain", "and built when read")
    }

    /// An adapter is given a built request; what it returns is what is sent.
    func testThatAnAdapterGetsABuiltRequest() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.adapter = HeaderAdapter()
        let delivered = Awaited<DefaultDataResponse>()
        session.request("http://fake.test/adapted").response { delivered.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertFalse(isPlain(attempt.plan.head))
        XCTAssertTrue(attempt.plan.headerLines.contains("X-Adapted: 1"), "\(attempt.plan.headerLines)")
        fake.respond(attempt, status: 200)
        XCTAssertEqual(delivered.wait()?.request?.value(forHTTPHeaderField: "X-Adapted"), "1")
    }
}

/// Adds one header.
private struct HeaderAdapter: RequestAdapter {
    func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        var request = urlRequest
        request.setValue("1", forHTTPHeaderField: "X-Adapted")
        return request
    }
}
