import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Requests in a row on one session run on the same pooled easy handle (one connection per host,
/// so the engine takes back the handle it just pooled): the next request must carry nothing of the
/// one before — not its header, not its credential, not its error text — and the session's
/// `Accept-Encoding` goes out once, from the header list the handle shares, with bodies still decoded.
final class PooledHandleIsolationTests: XCTestCase {
    private struct Echo: Decodable {
        let headers: [String: String]
    }

    private func session() -> SessionManager {
        var configuration = SessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        return SessionManager(configuration: configuration)
    }

    private func headers(_ request: DataRequest) async throws -> [String: String] {
        let response = await request.validate().serializingDecodable(Echo.self).response
        return try XCTUnwrap(response.value, String(describing: response.error)).headers
    }

    func testThatTheNextRequestSeesNeitherTheHeaderNorTheCredentialBeforeIt() async throws {
        let session = session()
        for round in 0..<2 {
            let first = try await headers(session.request(try Live.httpbin("/headers"), headers: ["X-First": "\(round)"])
                .authenticate(user: "user", password: "pass"))
            XCTAssertEqual(first["X-First"], "\(round)")
            let second = try await headers(session.request(try Live.httpbin("/headers")))
            XCTAssertNil(second["X-First"], "the header of the request before leaked")
            XCTAssertNil(second["Authorization"], "the credential of the request before leaked")
        }
    }

    func testThatAcceptEncodingIsSentOnceAndBodiesAreStillDecoded() async throws {
        let session = session()
        let expected = try XCTUnwrap(SessionManager.defaultHTTPHeaders["Accept-Encoding"])
        for _ in 0..<2 {
            let plain = try await headers(session.request(try Live.httpbin("/headers")))
            // httpbin joins a header sent twice with a comma: one value means one line.
            XCTAssertEqual(plain["Accept-Encoding"], expected)
            let own = try await headers(session.request(try Live.httpbin("/headers"), headers: ["Accept-Encoding": "identity"]))
            XCTAssertEqual(own["Accept-Encoding"], "identity", "the request's own value replaces the session's")
            for path in ["/gzip", "/deflate", "/brotli"] {
                let response = await session.request(try Live.httpbin(path)).validate().serializingJSON().response
                let object = try XCTUnwrap(response.value as? [String: Any], "\(path): \(String(describing: response.error))")
                XCTAssertNotNil(object["headers"], "\(path): the body was not decoded")
            }
        }
    }

    func testThatAFailuresMessageDoesNotShowInTheNextRequest() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let session = session()
        let closed = "http://127.0.0.1:\(try closedLoopbackPort())/"
        let refused = await session.request(closed).serializingData().response
        guard case let .sessionTaskFailed(_, firstMessage)? = refused.error else {
            return XCTFail("\(refused.debugDescription)")
        }
        XCTAssertFalse(firstMessage.isEmpty)
        server.enqueue(MockResponse(statusCode: 200, body: Data(count: 100_000)).disconnect(.midBody))
        let cut = await session.request(server.url("/cut")).serializingData().response
        guard case let .sessionTaskFailed(_, secondMessage)? = cut.error else { return XCTFail("\(cut.debugDescription)") }
        XCTAssertNotEqual(secondMessage, firstMessage, "the message of the failure before showed again")
        server.enqueue(MockResponse(statusCode: 200, body: Data("ok".utf8)))
        let fine = await session.request(server.url("/ok")).serializingData().response
        XCTAssertNil(fine.error, "\(fine.debugDescription)")
        XCTAssertEqual(fine.data, Data("ok".utf8))
    }

    /// The engine reuses ended attempt objects too (Engine/AttemptPool.swift): an attempt left paused
    /// (suspended, then cancelled), one cut by an idle timeout and one with a credential and a body
    /// must leave the next request on that object neither paused, nor timed out, nor with their
    /// credential, body, response, error or metrics.
    func testThatTheNextRequestInheritsNothingFromTheAttemptObjectBeforeIt() async throws {
        let session = session()
        for round in 0..<3 {
            let held = session.request(try Live.httpbin("/delay/1?round=\(round)"))
            let heldTask = Task { await held.serializingData().response }
            held.suspend()
            try await Task.sleep(nanoseconds: 200_000_000)
            held.cancel()
            guard case .explicitlyCancelled? = await heldTask.value.error else {
                return XCTFail("round \(round): the held request did not end cancelled")
            }
            var slow = URLRequest(url: try XCTUnwrap(URL(string: try Live.httpbin("/delay/3"))))
            slow.timeoutInterval = 0.5
            let timedOut = await session.request(slow).serializingData().response
            XCTAssertNotNil(timedOut.error, "round \(round): /delay/3 within 0.5 s")
            let posted = await session.request(try Live.httpbin("/post"), method: .post, parameters: ["secret": "body"],
                                               encoding: JSONEncoding.default)
                .authenticate(user: "user", password: "pass").validate().serializingData().response
            XCTAssertNil(posted.error, "round \(round): \(posted.debugDescription)")

            let started = Date()
            let next = await session.request(try Live.httpbin("/anything/next?round=\(round)")).validate()
                .serializingDecodable(Anything.self).response
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "round \(round): the next request was held")
            let echoed = try XCTUnwrap(next.value, "round \(round): \(next.debugDescription)")
            XCTAssertEqual(echoed.method, "GET")
            XCTAssertEqual(echoed.data, "", "round \(round): a body of the request before was sent")
            XCTAssertNil(echoed.headers["Authorization"], "round \(round): the credential of the request before leaked")
            XCTAssertEqual(next.response?.statusCode, 200)
            XCTAssertEqual(next.metrics?.effectiveURL?.path, "/anything/next")
        }
    }

    private struct Anything: Decodable {
        let method: String
        let data: String
        let headers: [String: String]
    }
}
