import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The hooks integrations build on: `Request.id` across events, `requestWasCreated` on the creating
/// task, and adapters that are told which request they adapt.
final class RequestHooksTests: XCTestCase {
    @TaskLocal static var callerTag: String?

    /// Records request ids per event, and the task-local seen at creation.
    final class IdentityMonitor: EventMonitor, @unchecked Sendable {
        let queue = DispatchQueue(label: "test.identity")
        let created = Recorder<(UUID, String?)>()
        let resumed = Recorder<UUID>()
        let finished = Recorder<UUID>()
        func requestWasCreated(_ request: any Request) { created.append((request.id, RequestHooksTests.callerTag)) }
        func requestDidResume(_ request: any Request) { resumed.append(request.id) }
        func requestDidFinish(_ request: any Request) { finished.append(request.id) }
        var settled: Void { queue.sync {} }
    }

    /// Tells which request each attempt belongs to.
    struct RequestRecordingAdapter: RequestAdapter {
        let seen = Recorder<UUID>()
        func adapt(_ urlRequest: URLRequest) throws -> URLRequest { urlRequest }
        func adapt(_ urlRequest: URLRequest, for request: any Request, session: SessionManager,
                   completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
            seen.append(request.id)
            var adapted = urlRequest
            adapted.setValue("\(request.id.hashValue)", forHTTPHeaderField: "X-Request-Id")
            completion(.success(adapted))
        }
    }

    func testThatEveryEventAndTheCreationHookCarryTheSameIdSeenFromTheCreatingTask() async throws {
        // Given
        let monitor = IdentityMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        let url = try Live.httpbin("/get")
        // When: created inside a task with a task-local value
        let request = Self.$callerTag.withValue("caller-42") { session.request(url) }
        let copy = request.validate()
        _ = await copy.serializingData().response
        monitor.settled
        // Then
        XCTAssertEqual(monitor.created.all.map(\.0), [request.id])
        XCTAssertEqual(monitor.created.all.map(\.1), ["caller-42"])
        XCTAssertEqual(copy.id, request.id)
        XCTAssertEqual(monitor.resumed.all, [request.id])
        XCTAssertEqual(monitor.finished.all, [request.id])
    }

    func testThatAModifierMakesANewRequestWithANewId() throws {
        // Given
        let monitor = IdentityMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        session.startRequestsImmediately = false
        // When
        let original = session.request(try Live.httpbin("/get"))
        let modified = original.authenticate(user: "u", password: "p")
        // Then
        XCTAssertNotEqual(original.id, modified.id)
        XCTAssertEqual(monitor.created.all.map(\.0), [original.id, modified.id])
    }

    func testThatAnAdapterIsToldWhichRequestItAdaptsOnEveryAttempt() async throws {
        // Given: a session adapter, and a per-request one added by a modifier
        let sessionAdapter = RequestRecordingAdapter()
        let perRequest = RequestRecordingAdapter()
        let session = SessionManager()
        session.adapter = sessionAdapter
        session.retrier = RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01)
        // When: a 503 is retried once
        let request = session.request(try Live.httpbin("/status/503")).adapt(using: perRequest)
        let response = await request.serializingData().response
        // Then
        XCTAssertEqual(request.retryCount, 1)
        XCTAssertEqual(sessionAdapter.seen.all, [request.id, request.id])
        XCTAssertEqual(perRequest.seen.all, [request.id, request.id])
        XCTAssertEqual(response.request?.value(forHTTPHeaderField: "X-Request-Id"), "\(request.id.hashValue)")
    }
}
