@testable import Curlfire
import Foundation
import XCTest

/// The hops of one attempt as the machine's own data (`HopChain`, the payload of `running`,
/// `cancelling` and `awaitingRedirectDecision`): redirect counts and durations for the metrics, and
/// what a hop dropped (the body, the credentials) for every later hop of the attempt. No libcurl.
final class RequestStateMachineHopChainTests: XCTestCase {
    typealias Machine = RequestStateMachine

    private func metrics(seconds: TimeInterval) -> TransferMetrics {
        TransferMetrics(totalDuration: seconds)
    }

    func testThatEachHopGetsTheRedirectsBeforeIt() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        var first = metrics(seconds: 0.5)
        machine.recordHop(&first, for: machine.stage!)
        XCTAssertEqual(first.redirectCount, 0)
        _ = machine.attemptEnded(.redirect, for: machine.stage!)
        _ = machine.redirectDecided(follow: true, for: machine.stage!)
        var second = metrics(seconds: 0.25)
        machine.recordHop(&second, for: machine.stage!)
        XCTAssertEqual(second.redirectCount, 1)
        XCTAssertEqual(second.redirectDuration, 0.5, accuracy: 1e-9)
        XCTAssertEqual(machine.hopChain?.redirectCount, 2)
        XCTAssertEqual(impossible.all, [])
    }

    func testThatADroppedBodyOrCredentialStaysDroppedForTheRestOfTheAttemptAndAResetComesWithARetry() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "awaitingRedirect", impossible: impossible)
        XCTAssertEqual(RequestStateMachineTests.name(machine.redirectDecided(follow: true, keepsBody: false,
                                                                            for: machine.stage!)), "startAttempt")
        XCTAssertEqual(machine.hopChain, Machine.HopChain(bodyDropped: true))
        _ = machine.attemptEnded(.redirect, for: machine.stage!)
        _ = machine.redirectDecided(follow: true, leavesOrigin: true, for: machine.stage!)
        XCTAssertEqual(machine.hopChain, Machine.HopChain(bodyDropped: true, credentialDropped: true),
                       "a later hop that keeps the body does not bring it back")
        _ = machine.attemptEnded(.retryable, for: machine.stage!)
        XCTAssertNil(machine.hopChain, "awaiting a retry: no attempt")
        _ = machine.retryDecided(.retry(after: 0), for: machine.stage!)
        _ = machine.adapted(.succeeded, for: machine.stage!)
        XCTAssertEqual(machine.hopChain, Machine.HopChain(), "a retry is a new attempt: a new chain")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatACancelledHopIsStillCountedAndAStaleOneIsNot() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", withHistory: true, impossible: impossible)
        let stage = machine.stage!
        _ = machine.cancel()
        var cancelled = metrics(seconds: 1)
        machine.recordHop(&cancelled, for: stage)
        XCTAssertEqual(machine.hopChain?.redirectCount, 1)
        var stale = metrics(seconds: 1)
        machine.recordHop(&stale, for: RequestStateMachineTests.firstStage)
        XCTAssertEqual(machine.hopChain?.redirectCount, 1)
        XCTAssertEqual(impossible.all, [])
    }
}
