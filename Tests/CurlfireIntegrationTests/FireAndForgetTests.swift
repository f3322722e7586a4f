import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Issue 30 point 2: a request no handler is ever attached to is sent, as in Alamofire 4, when the
/// last copy of its value is released; chains written right after creating a request still apply
/// before it starts, and a request is never sent twice. Counted at a real server (MockServer).
final class FireAndForgetTests: XCTestCase {
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

    /// Waits up to `timeout` for the server to have seen `count` requests; the count it saw.
    private func requestCount(reaching count: Int, within timeout: TimeInterval = 10) async -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while server.requestCount < count, Date() < deadline { try? await Task.sleep(nanoseconds: 20_000_000) }
        return server.requestCount
    }

    /// Lets any request that would (wrongly) still be sent arrive: a barrier request on a second
    /// session, answered after everything sent before it on loopback.
    private func settle() async {
        try? await Task.sleep(nanoseconds: 500_000_000)
    }

    func testThatAFireAndForgetPOSTArrives() async throws {
        // Given
        let session = SessionManager()
        server.enqueue(MockResponse(statusCode: 204))
        // When: Alamofire 4's fire-and-forget, no handler
        session.request(server.url("/events"), method: .post, parameters: ["event": "launched", "n": 1],
                        encoding: JSONEncoding.default)
        // Then
        let recorded = try XCTUnwrap(server.takeRequest(timeout: 10), "the POST was never sent")
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.path, "/events")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: recorded.body) as? [String: Any])
        XCTAssertEqual(body["event"] as? String, "launched")
        XCTAssertEqual(body["n"] as? Int, 1)
        await settle()
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatTheModuleLevelFireAndForgetRequestArrives() throws {
        server.enqueue(MockResponse(statusCode: 204))
        Curlfire.request(server.url("/ping?from=module"), method: .post)
        let recorded = try XCTUnwrap(server.takeRequest(timeout: 10), "the module-level request was never sent")
        XCTAssertEqual(recorded.path, "/ping?from=module")
    }

    func testThatARequestWithAHandlerIsSentExactlyOnce() async throws {
        // Given
        let session = SessionManager()
        for _ in 0..<3 { server.enqueue(.text("ok")) }
        // When: a handler, copies, a validated copy with its own handler, all released afterwards
        do {
            let request = session.request(server.url("/once"))
            let copy = request
            let validated = copy.validate()
            let first = await awaitResponse { request.responseData(completionHandler: $0) }
            let second = await awaitResponse { validated.responseString(completionHandler: $0) }
            XCTAssertEqual(first.response?.statusCode, 200)
            XCTAssertEqual(second.value, "ok")
        }
        let awaited = try await session.request(server.url("/awaited")).serializingString().value
        XCTAssertEqual(awaited, "ok")
        await settle()
        // Then
        XCTAssertEqual(server.requestCount, 2, "one transfer per request, never a second on release")
    }

    func testThatValidateWithoutAHandlerIsSentOnce() async throws {
        let session = SessionManager()
        server.enqueue(.text("ok"))
        // `_ =`: validate() is not @discardableResult on purpose (see MigratingFromAlamofire.md)
        _ = session.request(server.url("/validated")).validate().validate(statusCode: 200..<300)
        let count = await requestCount(reaching: 1)
        XCTAssertEqual(count, 1)
        await settle()
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(server.takeRequest(timeout: 1)?.path, "/validated")
    }

    func testThatAuthenticateAppliesBeforeAFireAndForgetRequestStarts() async throws {
        // Given: a server that asks for Basic credentials, then accepts them
        let challenged = try MockServer(dispatcher: { request in
            request.headers["Authorization"] == nil
                ? MockResponse(statusCode: 401, headers: ["WWW-Authenticate": "Basic realm=\"t\""])
                : MockResponse(statusCode: 204)
        })
        defer { challenged.shutdown() }
        let session = SessionManager()
        // When: the chain right after creation, no handler
        _ = session.request(challenged.url("/secret"), method: .post).authenticate(user: "user", password: "pass")
        // Then: the original request (replaced by the modifier) is not sent; the authenticated one is
        let deadline = Date().addingTimeInterval(10)
        while challenged.requestCount < 2, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        try await Task.sleep(nanoseconds: 500_000_000)
        var recorded: [RecordedRequest] = []
        while let next = challenged.takeRequest(timeout: 0.2) { recorded.append(next) }
        XCTAssertEqual(recorded.count, 2, "a challenge and one authenticated request: \(recorded)")
        let expected = "Basic " + Data("user:pass".utf8).base64EncodedString()
        XCTAssertEqual(recorded.last?.headers["Authorization"], expected)
    }

    func testThatAProgressClosureAttachedInTheChainReportsForAFireAndForgetRequest() async throws {
        let session = SessionManager()
        server.enqueue(MockResponse(body: Data(repeating: 7, count: 100_000)))
        let done = ResponseWaiter<Int64>()
        session.request(server.url("/big")).downloadProgress { progress in
            if progress.completedUnitCount == 100_000, progress.totalUnitCount == 100_000, !done.isFulfilled {
                done.fulfil(progress.completedUnitCount)
            }
        }
        let completed = await done.value
        XCTAssertEqual(completed, 100_000)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatAFireAndForgetDownloadArrivesAtItsDestination() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-ff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.txt")
        server.enqueue(.text("downloaded"))
        SessionManager().download(server.url("/report")) { _, _ in (file, [.createIntermediateDirectories]) }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: file.path), Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "downloaded")
    }

    func testThatNothingIsSentWhenTheSessionDoesNotStartRequestsImmediately() async throws {
        let session = SessionManager()
        session.startRequestsImmediately = false
        server.enqueue(.text("never"))
        session.request(server.url("/waits-for-resume"), method: .post)
        await settle()
        XCTAssertEqual(server.requestCount, 0, "as in Alamofire 4: without resume() nothing is sent")
    }

    func testThatACancelledOrSuspendedRequestIsNotSentOnRelease() async throws {
        let session = SessionManager()
        server.enqueue(.text("never"))
        session.request(server.url("/cancelled")).cancel()
        session.request(server.url("/suspended")).suspend()
        await settle()
        XCTAssertEqual(server.requestCount, 0)
    }

    func testThatAStoredRequestIsSentWhenItsLastCopyGoesAway() async throws {
        let session = SessionManager()
        server.enqueue(.text("ok"))
        var kept: DataRequest? = session.request(server.url("/kept"))
        var copy = kept
        kept = nil
        await settle()
        XCTAssertEqual(server.requestCount, 0, "a copy still holds it: it may still get a handler")
        XCTAssertEqual(copy?.state, .initialized)
        copy = nil
        let count = await requestCount(reaching: 1)
        XCTAssertEqual(count, 1)
    }

    /// The fire-and-forget forms of Alamofire 4.9.1's Usage.md and AdvancedUsage.md, renamed only.
    struct Router: URLRequestConvertible {
        let base: URL
        func asURLRequest() throws -> URLRequest {
            var request = URLRequest(url: base.appendingPathComponent("users/mattt"))
            request.httpMethod = "GET"
            return request
        }
    }

    func testThatTheAlamofire4DocsFireAndForgetFormsAllArrive() async throws {
        // Given: a server answering everything
        let all = try MockServer(dispatcher: { _ in MockResponse(statusCode: 200, body: Data("ok".utf8)) })
        defer { all.shutdown() }
        let parameters: Parameters = ["foo": "bar", "baz": ["a", 1], "qux": ["x": 1, "y": 2, "z": 3]]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-ff-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let destination: DownloadRequest.DownloadFileDestination = { _, _ in (file, [.removePreviousFile]) }
        var urlRequest = URLRequest(url: all.url("/request"))
        urlRequest.httpMethod = HTTPMethod.post.rawValue
        // When
        Curlfire.request(all.url("/get"))
        Curlfire.request(all.url("/post"), method: .post)
        Curlfire.request(all.url("/put"), method: .put)
        Curlfire.request(all.url("/delete"), method: .delete)
        Curlfire.request(all.url("/get-parameters"), parameters: parameters)
        Curlfire.request(all.url("/get-method-dependent"), parameters: parameters, encoding: URLEncoding(destination: .methodDependent))
        Curlfire.request(all.url("/post-form"), method: .post, parameters: parameters, encoding: URLEncoding.httpBody)
        Curlfire.request(all.url("/post-json"), method: .post, parameters: parameters, encoding: JSONEncoding.default)
        Curlfire.request(all.url("/post-json-options"), method: .post, parameters: parameters, encoding: JSONEncoding(options: []))
        Curlfire.request(urlRequest)
        Curlfire.request(Router(base: all.url("/")))
        Curlfire.download(all.url("/image/png"), to: destination)
        Curlfire.upload(Data("hello".utf8), to: all.url("/upload"))
        // Then: each arrives once
        let expected = ["GET /get", "POST /post", "PUT /put", "DELETE /delete", "GET /get-parameters",
                        "GET /get-method-dependent", "POST /post-form", "POST /post-json", "POST /post-json-options",
                        "POST /request", "GET /users/mattt", "GET /image/png", "POST /upload"]
        let deadline = Date().addingTimeInterval(15)
        while all.requestCount < expected.count, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        try await Task.sleep(nanoseconds: 300_000_000)
        var seen: [String] = []
        while let next = all.takeRequest(timeout: 0.2) { seen.append("\(next.method) \(next.pathWithoutQuery)") }
        XCTAssertEqual(seen.sorted(), expected.sorted())
    }

    // MARK: - A released session (decision: its started requests finish, then it goes)

    func testThatAReleasedSessionFinishesItsRequestsAndThenGoes() async throws {
        // Given: a slow answer, and the only reference to the session dropped while it is on its way
        server.enqueue(MockResponse(body: Data("late".utf8)).delayed(by: 0.5))
        weak var weakSession: SessionManager?
        let waiter = ResponseWaiter<DefaultDataResponse>()
        do {
            let session = SessionManager()
            weakSession = session
            session.request(server.url("/slow")).response { waiter.fulfil($0) }
        }
        // Then: the request ends normally (no -999 / sessionDeinitialized as in Alamofire 4) …
        let response = await waiter.value
        XCTAssertNil(response.error)
        XCTAssertEqual(response.data, Data("late".utf8))
        // … and the session is freed once nothing is in flight.
        let deadline = Date().addingTimeInterval(5)
        while weakSession != nil, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertNil(weakSession, "the session outlived its last request")
    }

    func testThatAReleasedSessionWhoseRequestsNeverStartGoesAtOnce() async throws {
        weak var weakSession: SessionManager?
        do {
            let session = SessionManager()
            session.startRequestsImmediately = false
            weakSession = session
            session.request(server.url("/never"))
        }
        let deadline = Date().addingTimeInterval(5)
        while weakSession != nil, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertNil(weakSession)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testThatCancelAllRequestsEndsARetryLoopSoTheSessionCanGo() async throws {
        // A retrier that never gives up keeps a request, and so its session, alive: cancelling
        // its requests is how a released session is stopped (Lifecycle.md, "A released session").
        let failing = try MockServer(dispatcher: { _ in MockResponse(statusCode: 503) })
        defer { failing.shutdown() }
        weak var weakSession: SessionManager?
        let waiter = ResponseWaiter<DefaultDataResponse>()
        do {
            let session = SessionManager()
            weakSession = session
            session.retrier = Retrier { _, _, _, completion in completion(.retryWithDelay(0.05)) }
            session.request(failing.url("/down")).response { waiter.fulfil($0) }
            let deadline = Date().addingTimeInterval(10)
            while failing.requestCount < 3, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
            XCTAssertGreaterThanOrEqual(failing.requestCount, 3, "retrying")
            session.cancelAllRequests()
        }
        let response = await waiter.value
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, "\(String(describing: response.error))")
        let deadline = Date().addingTimeInterval(5)
        while weakSession != nil, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertNil(weakSession)
        let settled = failing.requestCount
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(failing.requestCount, settled, "no retry after the session went")
    }
}
