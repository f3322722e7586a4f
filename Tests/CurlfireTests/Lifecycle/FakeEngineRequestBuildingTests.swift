@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// What `SessionManager.request(_:method:parameters:encoding:headers:)` builds from a `String`, and
/// where each reader sees it: the request value before it starts (`request.request`), the attempt's
/// plan (what libcurl is given), and the delivered response. The contract a lazily built request
/// must keep: the same `URLRequest` for every URL shape, the same `invalidURL` error for a malformed
/// one (delivered to the handler, no attempt made). Through the fake engine: no libcurl, no network.
final class FakeEngineRequestBuildingTests: XCTestCase {
    /// URL shapes a request may carry: query, fragment, IPv6 host, percent-escapes, user info,
    /// non-ASCII host and path, a trailing `?`, an upper-case host and a port, no path at all.
    private let wellFormed = [
        "http://fake.test/resource",
        "http://fake.test/search?q=swift&page=2",
        "http://fake.test/page#section",
        "http://[::1]:8080/path?x=1",
        "http://fake.test/a%20b/%E2%9C%93?x=%2F",
        "http://user:password@fake.test/private",
        "http://bücher.example/straße?ö=ü",
        "http://fake.test/trailing?",
        "https://FAKE.test:8443/Upper",
        "http://fake.test",
        "http://127.0.0.1:1/x;p=1?y=(2)",
    ]

    /// Strings that are not an absolute URL with a scheme and a host.
    private let malformed = ["", "not a url", "http://", "/relative/path", "fake.test/no-scheme",
                             "mailto:someone@example.com", "http://[::1/unclosed", "ht tp://fake.test"]

    /// Today's rule, written out: `URL(string:)` with a non-empty scheme and host, the session's
    /// request timeout, nothing else set; `nil` for a string that fails it.
    private func expectedRequest(_ string: String, timeout: TimeInterval) -> URLRequest? {
        guard let url = URL(string: string), !(url.scheme ?? "").isEmpty, !(url.host ?? "").isEmpty else { return nil }
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        return request
    }

    func testThatEveryURLShapeReachesTheValueThePlanAndTheResponseAsOneRequest() throws {
        let fake = FakeEngine()
        let session = fake.session()
        for string in wellFormed {
            let expected = try XCTUnwrap(expectedRequest(string, timeout: session.configuration.timeoutIntervalForRequest),
                                         "Foundation parses \(string)")
            let request = session.request(string)
            assertSameRequestFields(request.request, expected, "before the start: \(string)")
            let delivered = Awaited<DefaultDataResponse>()
            request.response { delivered.set($0) }
            let attempt = try XCTUnwrap(fake.nextAttempt(), "an attempt for \(string)")
            assertSameRequestFields(attempt.request, expected, "planned: \(string)")
            XCTAssertEqual(attempt.plan.requestURLText, expected.url?.absoluteString, "libcurl's URL: \(string)")
            XCTAssertEqual(attempt.plan.method, "GET")
            fake.respond(attempt, status: 200)
            let response = try XCTUnwrap(delivered.wait(), "a response for \(string)")
            XCTAssertNil(response.error, string)
            assertSameRequestFields(response.request, expected, "delivered: \(string)")
            assertSameRequestFields(request.request, expected, "read again after the end: \(string)")
        }
    }

    func testThatAMalformedURLFailsWithInvalidURLAndNoAttempt() throws {
        let fake = FakeEngine()
        let session = fake.session()
        var refused = 0
        for string in malformed {
            guard expectedRequest(string, timeout: 60) == nil else { continue } // Foundation's call, not this test's
            refused += 1
            let request = session.request(string)
            XCTAssertNil(request.request, string)
            let delivered = Awaited<DefaultDataResponse>()
            request.response { delivered.set($0) }
            let response = try XCTUnwrap(delivered.wait(), "a response for \(string)")
            guard case let .invalidURL(url)? = response.error else {
                XCTFail("\(string): \(String(describing: response.error))")
                continue
            }
            XCTAssertEqual(url, string, "the error names the string as given")
            XCTAssertNil(response.request, string)
            XCTAssertNil(response.response, string)
        }
        XCTAssertGreaterThanOrEqual(refused, 6, "most of the list is refused by Foundation itself")
        XCTAssertEqual(fake.attemptCount, 0, "no attempt for a URL that could not be built")
    }

    /// The readers beside the value, the plan and the response: an adapter (given the built request),
    /// an event monitor (`didCreateInitialURLRequest`) and a retrier (`request.request` of the value
    /// it is asked about) each see the request `request(String)` built, for every URL shape.
    func testThatAdaptersMonitorsAndRetriersSeeTheBuiltRequest() throws {
        let fake = FakeEngine()
        let monitor = ClosureEventMonitor(queue: DispatchQueue(label: "request-building-monitor"))
        let created = Recorder<URLRequest>()
        monitor.requestDidCreateInitialURLRequest = { _, request in created.append(request) }
        let session = fake.session(eventMonitors: [monitor])
        let adapted = Recorder<URLRequest>()
        session.adapter = RecordingAdapter(seen: adapted)
        let retried = Recorder<URLRequest?>()
        session.retrier = RecordingRetrier(seen: retried)
        for (index, string) in wellFormed.enumerated() {
            let expected = try XCTUnwrap(expectedRequest(string, timeout: session.configuration.timeoutIntervalForRequest))
            let delivered = Awaited<DefaultDataResponse>()
            session.request(string).response { delivered.set($0) }
            let first = try XCTUnwrap(fake.nextAttempt(), "a first attempt for \(string)")
            fake.respond(first, status: 503) // asks the retrier, which retries once
            let second = try XCTUnwrap(fake.nextAttempt(), "a retry for \(string)")
            assertSameRequestFields(second.request, expected, "retried: \(string)")
            fake.respond(second, status: 200)
            XCTAssertNotNil(delivered.wait(), string)
            XCTAssertEqual(adapted.all.count, 2 * (index + 1), "adapted once per attempt: \(string)")
            assertSameRequestFields(adapted.all.last, expected, "adapter: \(string)")
            assertSameRequestFields(retried.all.last ?? nil, expected, "retrier: \(string)")
        }
        monitor.queue.sync {} // the monitor's events were queued before the responses were delivered
        XCTAssertEqual(created.all.count, wellFormed.count)
        for (request, string) in zip(created.all, wellFormed) {
            let expected = try XCTUnwrap(expectedRequest(string, timeout: session.configuration.timeoutIntervalForRequest))
            assertSameRequestFields(request, expected, "monitor: \(string)")
        }
    }

    /// `URLEncoding` into the query of a GET: the bytes libcurl is given, pinned (percent-encoding of
    /// spaces, `&`, `=`, `+`, non-ASCII; keys sorted; an existing query kept first).
    func testThatQueryParametersGiveTheSameURLBytes() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let table: [(String, Parameters, String)] = [
            ("http://fake.test/get", ["q": "a b&c=d+e", "k": "ü"],
             "http://fake.test/get?k=%C3%BC&q=a%20b%26c%3Dd%2Be"),
            ("http://fake.test/get?a=1", ["b": 2, "list": [1, 2]],
             "http://fake.test/get?a=1&b=2&list%5B%5D=1&list%5B%5D=2"),
            ("http://fake.test/get?", ["flag": true], "http://fake.test/get?flag=1"),
        ]
        for (string, parameters, expected) in table {
            let request = session.request(string, parameters: parameters)
            XCTAssertEqual(request.request?.url?.absoluteString, expected, string)
            request.response { _ in }
            let attempt = try XCTUnwrap(fake.nextAttempt(), "an attempt for \(string)")
            XCTAssertEqual(attempt.plan.requestURLText, expected, string)
            fake.respond(attempt, status: 200)
        }
    }

    /// Only `URLEncoding` with nothing to encode takes the plain path: any other encoding runs even
    /// with no parameters (it may add a header or a body), and an `URLEncoding` of another
    /// destination still builds the same request as the plain path.
    func testThatAnEncodingOtherThanURLEncodingRunsWithNoParameters() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let custom = session.request("http://fake.test/custom", encoding: HeaderAddingEncoding())
        XCTAssertEqual(custom.request?.value(forHTTPHeaderField: "X-Encoded"), "yes")
        let customDelivered = Awaited<DefaultDataResponse>()
        custom.response { customDelivered.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(attempt.request.value(forHTTPHeaderField: "X-Encoded"), "yes", "the plan carries the encoded request")
        fake.respond(attempt, status: 200)
        XCTAssertEqual(try XCTUnwrap(customDelivered.wait()).response?.statusCode, 200)
        let plain = session.request("http://fake.test/plain", encoding: URLEncoding.queryString)
        XCTAssertNil(plain.request?.value(forHTTPHeaderField: "X-Encoded"))
        XCTAssertEqual(plain.request?.url?.absoluteString, "http://fake.test/plain")
        let plainDelivered = Awaited<DefaultDataResponse>()
        plain.response { plainDelivered.set($0) }
        let plainAttempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertNil(plainAttempt.request.value(forHTTPHeaderField: "X-Encoded"))
        fake.respond(plainAttempt, status: 200)
        XCTAssertEqual(try XCTUnwrap(plainDelivered.wait()).response?.statusCode, 200)
    }
}

/// Records each request it adapts and returns it unchanged.
private struct RecordingAdapter: RequestAdapter {
    let seen: Recorder<URLRequest>

    func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        seen.append(urlRequest)
        return urlRequest
    }
}

/// Records the request of each value it is asked about; retries the first failure of each request.
private struct RecordingRetrier: RequestRetrier {
    let seen: Recorder<URLRequest?>

    func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        seen.append(request.request)
        completion(request.retryCount == 0, 0)
    }
}

/// Adds `X-Encoded: yes` whatever the parameters, `nil` included.
private struct HeaderAddingEncoding: ParameterEncoding {
    func encode(_ urlRequest: URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
        var request = try urlRequest.asURLRequest()
        request.setValue("yes", forHTTPHeaderField: "X-Encoded")
        return request
    }
}
