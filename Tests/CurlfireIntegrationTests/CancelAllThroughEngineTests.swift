@testable import Curlfire
import CurlfireTesting
import Foundation
import Synchronization
import XCTest

/// The engine's side of `cancelAllRequests()` (docs/Lifecycle.md), on the real engine against a
/// MockServer: after a `cancelStarted` command, an attempt whose request started below the command's
/// epoch is cancelled as it is added — the request was between its start and the engine when the
/// call was made — and one whose request started at or after it runs. The window is made
/// deterministic by sending the command directly, before the request starts, with the session's own
/// epoch left behind it. (`LiveTransfersTests` covers the same rule through the fake engine.)
final class CancelAllThroughEngineTests: XCTestCase {
    func testThatAnAttemptAddedAfterTheCommandIsCancelledOnlyWhenItsRequestStartedBelowItsEpoch() async throws {
        let server = try MockServer(dispatcher: { request in
            MockResponse(body: Data("body of \(request.path)".utf8)).delayed(by: request.path == "/slow" ? 3 : 0.1)
        })
        defer { server.shutdown() }
        let session = SessionManager()
        XCTAssertEqual(session.cancelEpoch.load(ordering: .relaxed), 0)
        let handled = ResponseWaiter<Int>()
        XCTAssertTrue(session.engine.enqueue(.cancelStarted(before: 1) { running in handled.fulfil(running.count) }))
        let running = await handled.value
        XCTAssertEqual(running, 0, "nothing was running")

        // Starts at the session's epoch 0, below the engine's 1.
        let started = Date()
        let cancelled = await session.request(server.url("/slow")).serializingData().response
        guard case .explicitlyCancelled? = cancelled.error else {
            return XCTFail("cancelled as it reached the engine, got \(String(describing: cancelled.error))")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "at once, not when the server answers")

        // Starts at epoch 1, as a request started after that cancelAllRequests() call would.
        session.cancelEpoch.add(1, ordering: .sequentiallyConsistent)
        let sent = await session.request(server.url("/quick")).validate().serializingString().response
        XCTAssertEqual(sent.value, "body of /quick", "\(String(describing: sent.error))")
    }
}
