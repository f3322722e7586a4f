@testable import Curlfire
import CurlfireTesting
import Foundation
import FoundationNetworking
import XCTest

/// Commands that come in while the engine runs a turn, with many HTTP/1.1 transfers running, wait for
/// the next response (at most a millisecond) so that one `curl_multi_perform` takes both (Engine.run,
/// docs/Performance.md "thirteenth session"). Against nginx and the in-process mock server.
final class TurnBatchingTests: XCTestCase {
    /// Twenty transfers held open by a server that never answers keep the gate open; requests chained
    /// one after the other beside them (each started by the previous one's handler, often while the
    /// engine still ends its turn) are delayed by the wait, never held by it: 100 finish in seconds.
    func testThatRequestsStartedBesideManySilentTransfersAreNotHeldByTheWait() throws {
        let server = try MockEndpoints.faultServer()
        defer { server.shutdown() }
        let session = SessionManager()
        let engine = try XCTUnwrap(session.engine as? Engine)
        let held = (0..<20).map { index in session.request(server.url("/never-answer?held=\(index)")) }
        let heldDone = DispatchGroup()
        for request in held {
            heldDone.enter()
            request.response { _ in heldDone.leave() }
        }
        Thread.sleep(forTimeInterval: 0.5) // all twenty sent and waiting
        let url = try XCTUnwrap(try Live.servers().nginxHTTP).absoluteString + "/small.txt"
        let batchedBefore = engine.batchedTurns.load(ordering: .relaxed)
        let started = Date()
        let done = DispatchSemaphore(value: 0)
        @Sendable func next(_ left: Int) {
            session.request(url).response { response in
                XCTAssertEqual(response.response?.statusCode, 200)
                if left == 1 { done.signal() } else { next(left - 1) }
            }
        }
        next(100)
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the chain of 100 requests did not finish")
        let elapsed = Date().timeIntervalSince(started)
        let batched = engine.batchedTurns.load(ordering: .relaxed) - batchedBefore
        XCTAssertLessThan(elapsed, 5, "100 requests beside 20 silent transfers took \(elapsed) s")
        if Engine.batchingMinimum == .max {
            XCTAssertEqual(batched, 0, "CURLFIRE_TURN_BATCHING=0 never waits")
        } else {
            XCTAssertGreaterThan(batched, 0, "no turn waited: the gate did not see the twenty transfers")
        }
        held.forEach { $0.cancel() }
        XCTAssertEqual(heldDone.wait(timeout: .now() + 10), .success, "the held transfers did not end when cancelled")
    }

    /// With fewer HTTP/1.1 transfers than the gate's minimum, no turn waits.
    func testThatFewTransfersNeverWait() throws {
        let session = SessionManager()
        let engine = try XCTUnwrap(session.engine as? Engine)
        let url = try XCTUnwrap(try Live.servers().nginxHTTP).absoluteString + "/small.txt"
        let batchedBefore = engine.batchedTurns.load(ordering: .relaxed)
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            session.request(url).response(queue: .global()) { response in
                XCTAssertEqual(response.response?.statusCode, 200)
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(engine.batchedTurns.load(ordering: .relaxed) - batchedBefore, 0)
    }
}
