import Curlfire
import CurlfireTesting
import Foundation
import FoundationNetworking
import XCTest

/// Issue 30 point 6: Alamofire 4 code written the way its README and Advanced Usage write it,
/// compiled against Curlfire with only `Alamofire` renamed, and run against real servers
/// (MockServer, httpbin). Each test names the Alamofire 4 habit it keeps.
final class Alamofire4SpellingTests: XCTestCase {
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

    // MARK: - DataRequest.stream(closure:)

    func testThatStreamHandsEveryChunkOverInOrderAndKeepsNoData() async throws {
        // Given
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        server.enqueue(MockResponse(body: body).chunked())
        let received = Recorder<Data>()
        // When: Alamofire 4's README, "Response Handling" → stream
        let request = Curlfire.request(server.url("/stream")).stream { data in
            received.append(data)
        }
        let response = await awaitResponse { request.response(completionHandler: $0) }
        // Then: every chunk arrived before the completion (same serial queue), in order
        XCTAssertNil(response.error)
        XCTAssertEqual(received.all.reduce(Data(), +), body)
        XCTAssertNil(response.data, "as in Alamofire 4, a streamed body is not kept")
    }

    func testThatAFireAndForgetStreamIsSent() async throws {
        server.enqueue(.text("chunk"))
        let done = ResponseWaiter<Data>()
        Curlfire.request(server.url("/stream-only")).stream { data in done.fulfil(data) }
        let data = await done.value
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "chunk")
    }

    func testThatAStreamedBodyIsNotCachedAsAnEmptyOne() async throws {
        var configuration = SessionConfiguration()
        configuration.responseCache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil)
        let session = SessionManager(configuration: configuration)
        server.enqueue(MockResponse(headers: ["Cache-Control": "max-age=600"], body: Data("streamed".utf8)))
        server.enqueue(MockResponse(headers: ["Cache-Control": "max-age=600"], body: Data("kept".utf8)))
        let chunks = Recorder<Data>()
        let streamed = session.request(server.url("/cacheable")).stream { chunks.append($0) }
        _ = await awaitResponse { streamed.response(completionHandler: $0) }
        XCTAssertEqual(chunks.all.reduce(Data(), +), Data("streamed".utf8))
        let second = try await session.request(server.url("/cacheable")).serializingString().value
        XCTAssertEqual(second, "kept", "the streamed response was not stored with an empty body")
        XCTAssertEqual(server.requestCount, 2)
    }

    // MARK: - SessionManager(configuration: URLSessionConfiguration)

    func testThatAURLSessionConfigurationIsMapped() async throws {
        // Given: Advanced Usage, "Creating a Session Manager with Custom Configuration"
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 4
        configuration.timeoutIntervalForResource = 30
        configuration.httpMaximumConnectionsPerHost = 2
        configuration.httpAdditionalHeaders = ["X-Custom": "yes", "DNT": "1 (Do Not Track Enabled)"]
        let sessionManager = Curlfire.SessionManager(configuration: configuration)
        // Then
        XCTAssertEqual(sessionManager.configuration.timeoutIntervalForRequest, 4)
        XCTAssertEqual(sessionManager.configuration.timeoutIntervalForResource, 30)
        XCTAssertEqual(sessionManager.configuration.httpMaximumConnectionsPerHost, 2)
        XCTAssertNotNil(sessionManager.configuration.httpAdditionalHeaders["User-Agent"], "Curlfire's defaults stay")
        // When
        server.enqueue(.text("ok"))
        let response = await awaitResponse { sessionManager.request(server.url("/configured")).responseString(completionHandler: $0) }
        // Then
        XCTAssertEqual(response.value, "ok")
        let recorded = try XCTUnwrap(server.takeRequest(timeout: 5))
        XCTAssertEqual(recorded.headers["X-Custom"], "yes")
        XCTAssertEqual(recorded.headers["DNT"], "1 (Do Not Track Enabled)")
    }

    func testThatAnEphemeralConfigurationGivesAWorkingSession() async throws {
        let sessionManager = SessionManager(configuration: URLSessionConfiguration.ephemeral)
        XCTAssertEqual(sessionManager.configuration.httpShouldSetCookies,
                       URLSessionConfiguration.ephemeral.httpShouldSetCookies)
        server.enqueue(.text("ephemeral"))
        let value = try await sessionManager.request(server.url("/e")).serializingString().value
        XCTAssertEqual(value, "ephemeral")
    }

    // MARK: - AFError, RequestRetrier with RequestRetryCompletion

    func testThatAFErrorNamesTheValidationFailure() async throws {
        server.enqueue(MockResponse(statusCode: 404))
        let response = await awaitResponse { Curlfire.request(server.url("/missing")).validate().responseData(completionHandler: $0) }
        let error: AFError? = response.error
        guard case let .responseValidationFailed(reason: .unacceptableStatusCode(code))? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertEqual(code, 404)
    }

    /// Advanced Usage, "RequestRetrier" — `final` and without mutable state, as Swift 6 asks.
    final class RetryHandler: RequestRetrier {
        func should(_ manager: SessionManager, retry request: Request, with error: Error,
                    completion: @escaping RequestRetryCompletion) {
            if request.retryCount < 2 {
                completion(true, 0.0)
            } else {
                completion(false, 0.0)
            }
        }
    }

    func testThatAnAlamofire4RetrierRetries() async throws {
        server.enqueue(MockResponse(statusCode: 503))
        server.enqueue(MockResponse(statusCode: 503))
        server.enqueue(.text("third time"))
        let sessionManager = SessionManager()
        sessionManager.retrier = RetryHandler()
        let response = await awaitResponse { sessionManager.request(server.url("/flaky")).validate().responseString(completionHandler: $0) }
        XCTAssertEqual(response.value, "third time")
        XCTAssertEqual(server.requestCount, 3)
    }

    // MARK: - authenticate(usingCredential:)

    func testThatAuthenticateUsingCredentialAnswersTheChallenge() async throws {
        // README, "HTTP Basic Authentication"
        let user = "user"
        let password = "password"
        let credential = URLCredential(user: user, password: password, persistence: .forSession)
        let url = try Live.httpbin("/basic-auth/\(user)/\(password)")
        let response = await awaitResponse {
            Curlfire.request(url).authenticate(usingCredential: credential).validate().responseJSON(completionHandler: $0)
        }
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual((response.value as? [String: Any])?["user"] as? String, user)
        let wrong = await awaitResponse {
            Curlfire.request(url).authenticate(user: user, password: "nope", persistence: .none).validate()
                .responseData(completionHandler: $0)
        }
        XCTAssertEqual(wrong.response?.statusCode, 401)
    }

    func testThatAnAuthorizationHeaderBuiltAsInAlamofire4IsAccepted() async throws {
        // Usage.md, "Authentication" → HTTP Basic with headers (Request.… becomes DataRequest.…)
        let user = "user"
        let password = "password"
        var headers: HTTPHeaders = [:]
        if let authorizationHeader = DataRequest.authorizationHeader(user: user, password: password) {
            headers[authorizationHeader.key] = authorizationHeader.value
        }
        let url = try Live.httpbin("/basic-auth/user/password")
        let response = await awaitResponse {
            Curlfire.request(url, headers: headers).validate()
                .responseJSON(completionHandler: $0)
        }
        XCTAssertNil(response.error, response.debugDescription)
    }

    // MARK: - Serializers spelled as Alamofire 4 statics

    func testThatTheAlamofire4SerializerStaticsSerialize() async throws {
        server.enqueue(.text("{\"a\": 1}"))
        server.enqueue(.text("plain"))
        let json = await awaitResponse {
            Curlfire.request(server.url("/json"))
                .response(responseSerializer: DataRequest.jsonResponseSerializer(options: []), completionHandler: $0)
        }
        XCTAssertEqual((json.value as? [String: Any])?["a"] as? Int, 1)
        let text = await awaitResponse {
            Curlfire.request(server.url("/text"))
                .response(responseSerializer: DataRequest.stringResponseSerializer(encoding: .utf8), completionHandler: $0)
        }
        XCTAssertEqual(text.value, "plain")
        XCTAssertEqual(try DataRequest.serializeResponseJSON(options: [], response: nil, data: Data("[1]".utf8), error: nil)
            .get() as? [Int], [1])
        XCTAssertEqual(try DataRequest.serializeResponseData(response: nil, data: Data("x".utf8), error: nil).get(), Data("x".utf8))

        server.enqueue(.text("{\"b\": true}"))
        let downloaded = await awaitResponse {
            Curlfire.download(server.url("/file.json"))
                .response(responseSerializer: DownloadRequest.jsonResponseSerializer(), completionHandler: $0)
        }
        XCTAssertEqual((downloaded.value as? [String: Any])?["b"] as? Bool, true)
        if let file = downloaded.temporaryURL { try? FileManager.default.removeItem(at: file) }
    }
}
