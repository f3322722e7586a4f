// Testing code that uses Curlfire, with CurlfireTesting's MockServer: an in-process HTTP(S) server
// scripted response by response, that records every request. No test servers needed.
//
//     swift run Testing
//
// Exits non-zero when a check fails. The same steps as a user's XCTest would take, with checks
// instead of assertions.
import Curlfire
import CurlfireTesting
import Foundation
import PlaygroundSupport

Playground.begin("Testing")

/// The "app code" under test: a tiny API client that only knows a base URL.
struct TodoClient {
    struct Todo: Codable, Equatable, Sendable {
        let id: Int
        let title: String
        let done: Bool
    }

    let baseURL: URL
    let session: SessionManager

    func todos(page: Int) async throws -> [Todo] {
        try await session.request(baseURL.appendingPathComponent("todos"), parameters: ["page": page])
            .validate().serializingDecodable([Todo].self).value
    }

    func add(_ todo: Todo) async throws {
        _ = try await session.request(baseURL.appendingPathComponent("todos"), method: .post,
                                      parameters: todo, encoder: JSONParameterEncoder.default)
            .validate().serializingData().response.result.get()
    }
}

// MARK: - 1. Script responses, call the client, assert on what it sent

Playground.section("Scripted JSON responses and recorded requests")
let server: MockServer
do { server = try MockServer() } catch { Playground.fail("could not start the mock server: \(error)") }
Playground.note("listening at \(server.baseURL.absoluteString)")
let client = TodoClient(baseURL: server.url("/api"), session: SessionManager())
let todo = TodoClient.Todo(id: 1, title: "Write tests", done: false)

server.enqueue(.json([todo]))
server.enqueue(MockResponse(statusCode: 201, body: Data("{}".utf8)))
let fetched = try? await client.todos(page: 2)
Playground.check(fetched == [todo], "todos(page: 2) decoded the scripted JSON")
do { try await client.add(TodoClient.Todo(id: 2, title: "Ship", done: true)) } catch {
    Playground.check(false, "add(_:) failed: \(error)")
}

let get = server.takeRequest()
Playground.check(get?.method == "GET" && get?.path == "/api/todos?page=2", "sent \(get?.method ?? "?") \(get?.path ?? "?")")
Playground.check(get?.headers["accept-encoding"] != nil, "header lookup ignores case (Accept-Encoding: \(get?.headers["ACCEPT-ENCODING"] ?? "none"))")
let post = server.takeRequest()
let posted = try? post?.decodeBody(TodoClient.Todo.self)
Playground.check(post?.method == "POST" && posted?.title == "Ship", "POST body decoded: \(post?.bodyString ?? "none")")
Playground.check(post?.headers["Content-Type"] == "application/json", "Content-Type \(post?.headers["Content-Type"] ?? "none")")
Playground.check(get?.connectionIndex == post?.connectionIndex, "both requests shared connection \(get?.connectionIndex ?? -1)")

// MARK: - 2. Errors the app must handle

Playground.section("Error statuses, timeouts and dropped connections")
server.enqueue(.json(["error": "rate limited"], statusCode: 429))
do {
    _ = try await client.todos(page: 1)
    Playground.check(false, "a 429 should fail validation")
} catch let error as CurlfireError {
    Playground.check(error.responseCode == 429, "429 surfaced as \(error.localizedDescription)")
} catch {
    Playground.check(false, "unexpected error \(error)")
}

server.enqueue(MockResponse.json([todo]).delayed(by: 1))
var slow = URLRequest(url: server.url("/api/todos"))
slow.timeoutInterval = 0.3
let timedOut = await SessionManager().request(slow).serializingData().response
if case .sessionTaskFailed(code: .timedOut, _)? = timedOut.error {
    Playground.check(true, "a 1 s delay against a 0.3 s timeout is .timedOut")
} else {
    Playground.check(false, "expected .timedOut, got \(String(describing: timedOut.error))")
}

server.enqueue(MockResponse(body: Data(count: 10_000)).disconnect(.midBody))
let dropped = await SessionManager().request(server.url("/api/todos")).serializingData().response
Playground.check(dropped.error?.transportErrorCode == .connectionLost, "a connection dropped mid-body is .connectionLost")

// MARK: - 3. A dispatcher and HTTPS

Playground.section("A dispatcher over HTTPS, trusting the generated certificate")
do {
    let secure = try MockServer(tls: .selfSigned()) { request in
        request.pathWithoutQuery == "/api/todos" ? .json([todo]) : .json(["error": "no route"], statusCode: 404)
    }
    var configuration = SessionConfiguration()
    configuration.trustedRootCertificates = secure.certificate.map { [$0] } ?? []
    Playground.note("certificate \(secure.certificate?.subjectSummary ?? "none"), SANs \(secure.certificate?.subjectAlternativeNames ?? [])")
    let secureClient = TodoClient(baseURL: secure.url("/api"), session: SessionManager(configuration: configuration))
    let todos = try await secureClient.todos(page: 1)
    Playground.check(todos == [todo], "HTTPS todos(page: 1) through the dispatcher")
    Playground.check(secure.requestCount == 1, "the server recorded \(secure.requestCount) request")
} catch {
    Playground.check(false, "HTTPS failed: \(error)")
}

server.shutdown()
Playground.finish()
