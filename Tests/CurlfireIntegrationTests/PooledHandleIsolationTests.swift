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
}
