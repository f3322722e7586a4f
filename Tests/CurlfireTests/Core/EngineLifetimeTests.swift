@testable import Curlfire
import XCTest

/// The engine and its thread never keep each other alive once the engine has shut down.
final class EngineLifetimeTests: XCTestCase {
    func testThatAShutDownEngineIsFreed() throws {
        weak var released: Engine?
        do {
            let engine = Engine(label: "curlfire-engine", maximumConnectionsPerHost: 0, cookiesShared: false)
            released = engine
            engine.shutdown()
        }
        // The thread's closure drops its reference as the thread exits, just after `shutdown()` returns.
        let deadline = Date().addingTimeInterval(5)
        while released != nil, Date() < deadline { usleep(10_000) }
        XCTAssertNil(released, "the engine outlived its thread")
    }

    func testThatAReleasedSessionFreesItsEngine() throws {
        weak var released: Engine?
        do {
            let session = SessionManager()
            released = session.engine as? Engine
        }
        let deadline = Date().addingTimeInterval(5)
        while released != nil, Date() < deadline { usleep(10_000) }
        XCTAssertNil(released, "the engine outlived its session")
    }
}
