internal import CCurl
@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// A retrier that records each question and retries the first `retries` failures after `delay`.
struct ScriptedRetrier: RequestRetrier {
    let asked: Recorder<String>
    var retries: Int
    var delay: TimeInterval = 0

    func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
        asked.append(String(describing: error))
        completion(asked.all.count <= retries, delay)
    }
}

/// An adapter's failure: the token-refresh pattern's first answer.
struct TokenExpired: Error {}

/// A request's bookkeeping — retries, redirects with credential dropping, a download's resume plan,
/// handler order — driven through a fake engine (FakeEngine.swift): no libcurl, no network.
final class FakeEngineRetryRedirectTests: XCTestCase {
    private let url = "http://fake.test/resource"

    func testThatTheRetrierIsAskedOncePerFailureAndEachRetryIsANewAttempt() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let asked = Recorder<String>()
        session.retrier = ScriptedRetrier(asked: asked, retries: 5)
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }

        let first = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(first.stage.attempt, 1)
        fake.respond(first, status: 503)
        let second = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(second.stage.attempt, 2)
        fake.fail(second, with: .transportError(code: CURLE_COULDNT_CONNECT, message: "refused", headComplete: false))
        let third = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(third.stage.attempt, 3)
        fake.respond(third, status: 200, body: Data("ok".utf8))

        let response = try XCTUnwrap(done.wait())
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.data, Data("ok".utf8))
        XCTAssertEqual(asked.all.count, 2, "one question per failure, none after the success: \(asked.all)")
        XCTAssertEqual(fake.attemptCount, 3)
        XCTAssertEqual(request.retryCount, 2)
    }

    func testThatARetryWaitsForItsDelayBeforeTheNextAttempt() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let asked = Recorder<String>()
        session.retrier = ScriptedRetrier(asked: asked, retries: 1, delay: 0.4)
        let done = Awaited<DefaultDataResponse>()
        let request = session.request(url).response { done.set($0) }

        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 500)
        let failedAt = Date()
        // The machine is delaying the retry: the request is running (to its user), no attempt is in the engine.
        let second = try XCTUnwrap(fake.nextAttempt())
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(failedAt), 0.35, "the retry came before its delay")
        XCTAssertEqual(request.state, .resumed)
        fake.respond(second, status: 200)
        XCTAssertEqual(try XCTUnwrap(done.wait()).response?.statusCode, 200)
        XCTAssertEqual(asked.all.count, 1)
    }

    func testThatTheResourceDeadlineEndsARequestWaitingOutARetryDelay() throws {
        let fake = FakeEngine()
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForResource = 0.5
        let session = fake.session(configuration: configuration)
        session.retrier = ScriptedRetrier(asked: Recorder<String>(), retries: 1, delay: 60)
        let done = Awaited<DefaultDataResponse>()
        session.request(url).response { done.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 503)
        let response = try XCTUnwrap(done.wait(timeout: 30), "the deadline did not end the retry delay")
        guard case .sessionTaskFailed(.timedOut, _)? = response.error else {
            return XCTFail("expected timedOut, got \(String(describing: response.error))")
        }
        XCTAssertEqual(fake.attemptCount, 1)
    }

    func testThatWhenTheRetrierDeclinesTheFailureIsDeliveredAsItIs() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let asked = Recorder<String>()
        session.retrier = ScriptedRetrier(asked: asked, retries: 0)
        let done = Awaited<DefaultDataResponse>()
        session.request(url).response { done.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 404, body: Data("missing".utf8))
        let response = try XCTUnwrap(done.wait())
        XCTAssertEqual(response.response?.statusCode, 404)
        XCTAssertEqual(response.data, Data("missing".utf8))
        XCTAssertEqual(asked.all.count, 1)
        XCTAssertEqual(fake.attemptCount, 1)
    }

    func testThatACrossOriginRedirectDropsTheCredentialsAndASameOriginOneKeepsThem() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let done = Awaited<DefaultDataResponse>()
        session.request(url, headers: ["Authorization": "Bearer secret", "X-Kept": "1"])
            .authenticate(user: "user", password: "pass")
            .response { done.set($0) }

        let first = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(first.request.value(forHTTPHeaderField: "Authorization"), "Bearer secret")
        XCTAssertNotNil(first.options.credential)
        fake.respond(first, status: 302, headers: ["Location": "/same-origin"])

        let sameOrigin = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(sameOrigin.request.url?.absoluteString, "http://fake.test/same-origin")
        XCTAssertEqual(sameOrigin.stage.hop, 1)
        XCTAssertEqual(sameOrigin.request.value(forHTTPHeaderField: "Authorization"), "Bearer secret")
        XCTAssertNotNil(sameOrigin.options.credential, "same origin: the credential stays")
        fake.respond(sameOrigin, status: 307, headers: ["Location": "http://elsewhere.test/next"])

        let crossOrigin = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(crossOrigin.request.url?.absoluteString, "http://elsewhere.test/next")
        XCTAssertEqual(crossOrigin.stage.hop, 2)
        XCTAssertEqual(crossOrigin.stage.attempt, 1, "a redirect is a hop of the same attempt")
        XCTAssertNil(crossOrigin.request.value(forHTTPHeaderField: "Authorization"), "Authorization crossed origins")
        XCTAssertNil(crossOrigin.options.credential, "the user's credential crossed origins")
        XCTAssertEqual(crossOrigin.request.value(forHTTPHeaderField: "X-Kept"), "1")
        fake.respond(crossOrigin, status: 302, headers: ["Location": "http://fake.test/back"])

        // Back on the first origin: once dropped, the credential stays dropped for the attempt.
        let back = try XCTUnwrap(fake.nextAttempt())
        XCTAssertNil(back.options.credential)
        fake.respond(back, status: 200, body: Data("end".utf8))
        let response = try XCTUnwrap(done.wait())
        XCTAssertEqual(response.data, Data("end".utf8))
        XCTAssertEqual(response.response?.url?.absoluteString, "http://fake.test/back")
        XCTAssertEqual(fake.attemptCount, 4)
    }

    func testThatA303DropsTheBodyAndA307KeepsIt() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let body = Data("payload".utf8)
        for (status, keeps) in [(303, false), (307, true)] {
            let done = Awaited<DefaultDataResponse>()
            session.upload(body, to: url, method: .post).response { done.set($0) }
            let first = try XCTUnwrap(fake.nextAttempt())
            XCTAssertEqual(first.plan.method, "POST")
            XCTAssertEqual(first.plan.bodyLength, Int64(body.count))
            fake.respond(first, status: status, headers: ["Location": "/moved"])
            let next = try XCTUnwrap(fake.nextAttempt())
            XCTAssertEqual(next.plan.method, keeps ? "POST" : "GET", "\(status)")
            XCTAssertEqual(next.plan.hasBody, keeps, "\(status)")
            fake.respond(next, status: 200)
            XCTAssertEqual(done.wait()?.response?.statusCode, 200)
        }
    }

    func testThatAFailedAdaptationAsksTheRetrierAndTheRetryAdaptsAgain() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let adaptations = Recorder<Int>()
        session.adapter = Adapter { request in
            adaptations.append(adaptations.all.count + 1)
            guard adaptations.all.count > 1 else { throw TokenExpired() }
            var adapted = request
            adapted.setValue("Bearer fresh", forHTTPHeaderField: "Authorization")
            return adapted
        }
        let asked = Recorder<String>()
        session.retrier = ScriptedRetrier(asked: asked, retries: 1)
        let done = Awaited<DefaultDataResponse>()
        session.request(url).response { done.set($0) }
        let attempt = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(attempt.stage.attempt, 2, "the failed adaptation was attempt 1")
        XCTAssertEqual(attempt.request.value(forHTTPHeaderField: "Authorization"), "Bearer fresh")
        fake.respond(attempt, status: 200)
        XCTAssertEqual(done.wait()?.response?.statusCode, 200)
        XCTAssertEqual(asked.all.count, 1)
        XCTAssertEqual(adaptations.all, [1, 2])
        XCTAssertEqual(fake.attemptCount, 1, "a failed adaptation reaches no engine")
    }

    func testThatAHandlerAttachedAfterTheEndRunsWithTheSameOutcomeAfterTheEarlierOnes() throws {
        let fake = FakeEngine()
        let session = fake.session()
        let order = Recorder<String>()
        let queue = DispatchQueue(label: "handlers")
        let first = Awaited<Bool>()
        let request = session.request(url).response(queue: queue) { _ in
            order.append("first")
            first.set(true)
        }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 201, body: Data("x".utf8))
        XCTAssertEqual(first.wait(), true)
        let late = Awaited<DefaultDataResponse>()
        request.response(queue: queue) { response in
            order.append("late")
            late.set(response)
        }
        XCTAssertEqual(late.wait()?.response?.statusCode, 201)
        XCTAssertEqual(late.wait()?.data, Data("x".utf8))
        XCTAssertEqual(order.all, ["first", "late"])
        XCTAssertEqual(fake.attemptCount, 1, "a late handler sends nothing again")
    }

    func testThatTooManyRedirectsEndTheRequestWithoutAnotherAttempt() throws {
        let fake = FakeEngine()
        var configuration = SessionConfiguration.default
        configuration.maximumRedirects = 2
        let session = fake.session(configuration: configuration)
        let done = Awaited<DefaultDataResponse>()
        session.request(url).response { done.set($0) }
        for _ in 0..<3 { fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 302, headers: ["Location": "/loop"]) }
        let response = try XCTUnwrap(done.wait())
        guard case .sessionTaskFailed(.tooManyRedirects, _)? = response.error else {
            return XCTFail("expected tooManyRedirects, got \(String(describing: response.error))")
        }
        XCTAssertEqual(fake.attemptCount, 3)
    }

    func testThatAResponseHandlersRunOnceEachInAttachOrderAfterTheLastAttempt() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.retrier = ScriptedRetrier(asked: Recorder<String>(), retries: 1)
        let order = Recorder<String>()
        let done = Awaited<Bool>()
        let queue = DispatchQueue(label: "handlers")
        let request = session.request(url)
            .response(queue: queue) { order.append("response \($0.response?.statusCode ?? 0) after \(fake.attemptCount)") }
            .responseData(queue: queue) { order.append("data \($0.value.map { String(decoding: $0, as: UTF8.self) } ?? "-")") }
        request.responseString(queue: queue) { order.append("string \($0.value ?? "-")") }
        request.response(queue: queue) { _ in done.set(true) }

        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 500)
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 200, body: Data("two".utf8))
        XCTAssertEqual(done.wait(), true)
        XCTAssertEqual(order.all, ["response 200 after 2", "data two", "string two"])
    }

    func testThatARetriedDownloadAsksForTheRestOfItsFileWithRangeAndIfRange() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.retrier = ScriptedRetrier(asked: Recorder<String>(), retries: 1)
        let done = Awaited<DownloadResponse<Data>>()
        session.download(url).responseData { done.set($0) }

        let first = try XCTUnwrap(fake.nextAttempt())
        XCTAssertNil(first.request.value(forHTTPHeaderField: "Range"))
        // The connection drops after 4 of 10 bytes (libcurl's CURLE_PARTIAL_FILE, 18).
        fake.respond(first, status: 200, headers: ["Content-Length": "10", "ETag": "\"v1\""], body: Data("0123".utf8),
                     ending: .transportError(code: CURLE_PARTIAL_FILE, message: "partial", headComplete: true))

        let second = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(second.stage.attempt, 2)
        XCTAssertEqual(second.request.value(forHTTPHeaderField: "Range"), "bytes=4-")
        XCTAssertEqual(second.request.value(forHTTPHeaderField: "If-Range"), "\"v1\"")
        fake.respond(second, status: 206, headers: ["Content-Length": "6", "Content-Range": "bytes 4-9/10", "ETag": "\"v1\""],
                     body: Data("456789".utf8))

        let response = try XCTUnwrap(done.wait())
        XCTAssertNil(response.error)
        XCTAssertEqual(response.value, Data("0123456789".utf8), "the retry appended to the bytes of the first attempt")
        if let file = response.destinationURL { try? FileManager.default.removeItem(at: file) }
    }

    func testThatARetriedDownloadWhoseServerIgnoresTheRangeStartsItsFileOver() throws {
        let fake = FakeEngine()
        let session = fake.session()
        session.retrier = ScriptedRetrier(asked: Recorder<String>(), retries: 1)
        let done = Awaited<DownloadResponse<Data>>()
        session.download(url).responseData { done.set($0) }
        fake.respond(try XCTUnwrap(fake.nextAttempt()), status: 200,
                     headers: ["Content-Length": "10", "Last-Modified": "Wed, 25 Nov 2026 10:00:00 GMT"],
                     body: Data("abc".utf8), ending: .transportError(code: CURLE_PARTIAL_FILE, message: "partial", headComplete: true))
        let second = try XCTUnwrap(fake.nextAttempt())
        XCTAssertEqual(second.request.value(forHTTPHeaderField: "Range"), "bytes=3-")
        XCTAssertEqual(second.request.value(forHTTPHeaderField: "If-Range"), "Wed, 25 Nov 2026 10:00:00 GMT")
        // The representation changed (If-Range did not match): the whole body, from byte 0.
        fake.respond(second, status: 200, headers: ["Content-Length": "10"], body: Data("ABCDEFGHIJ".utf8))
        let response = try XCTUnwrap(done.wait())
        XCTAssertNil(response.error)
        XCTAssertEqual(response.value, Data("ABCDEFGHIJ".utf8), "a 200 to a ranged retry replaces the partial file")
        if let file = response.destinationURL { try? FileManager.default.removeItem(at: file) }
    }
}
