@testable import Curlfire
import XCTest

/// The retry-delay timer is the `delayingRetry` state's own: stored when the owner reports it armed,
/// handed back for cancelling when the request leaves the stage early, dropped when it fires. No
/// libcurl, no network, no real timer.
final class RequestStateMachineTimerTests: XCTestCase {
    typealias Machine = RequestStateMachine

    /// A timer that counts its cancels.
    private func timer(_ cancels: Recorder<String>) -> Machine.StageTimer {
        Machine.StageTimer { cancels.append("cancel") }
    }

    private func delaying(_ impossible: Recorder<String>) -> Machine {
        RequestStateMachineTests.machine(in: "delaying", impossible: impossible)
    }

    func testThatCancelDuringARetryDelayHandsItsTimerBackToBeCancelled() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let armed = timer(Recorder<String>())
        XCTAssertTrue(machine.retryTimerArmed(armed, for: machine.stage!))
        guard case .delayingRetry(_, armed?) = machine.state else { return XCTFail("\(machine.state)") }
        XCTAssertEqual(machine.cancel(), .finish(.cancelled, cancelling: armed))
        XCTAssertEqual(impossible.all, [])
    }

    func testThatTheDeadlineDuringARetryDelayHandsItsTimerBackToBeCancelled() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let armed = timer(Recorder<String>())
        XCTAssertTrue(machine.retryTimerArmed(armed, for: machine.stage!))
        XCTAssertEqual(machine.resourceDeadlineElapsed(), .finish(.resourceTimedOut, cancelling: armed))
        XCTAssertEqual(impossible.all, [])
    }

    func testThatAFiredTimerIsDroppedAndTheNextStageHoldsNoTimer() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let stage = machine.stage!
        XCTAssertTrue(machine.retryTimerArmed(timer(Recorder<String>()), for: stage))
        XCTAssertEqual(RequestStateMachineTests.name(machine.delayElapsed(for: stage)), "adapt")
        XCTAssertEqual(machine.cancel(), .finish(.cancelled), "nothing left to cancel")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatATimerArmedAfterTheStageWasLeftIsTheOwnersToCancel() {
        let impossible = Recorder<String>()
        var cancelled = delaying(impossible)
        let stage = cancelled.stage!
        XCTAssertEqual(cancelled.cancel(), .finish(.cancelled))
        XCTAssertFalse(cancelled.retryTimerArmed(timer(Recorder<String>()), for: stage), "stale: not kept")
        var fired = delaying(impossible)
        let firedStage = fired.stage!
        _ = fired.delayElapsed(for: firedStage) // fired before the owner reported it armed
        XCTAssertFalse(fired.retryTimerArmed(timer(Recorder<String>()), for: firedStage))
        XCTAssertEqual(impossible.all, [], "a stage left meanwhile is stale, not impossible")
    }

    func testThatArmingTwiceOrOutsideARetryDelayIsImpossible() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let stage = machine.stage!
        XCTAssertTrue(machine.retryTimerArmed(timer(Recorder<String>()), for: stage))
        XCTAssertFalse(machine.retryTimerArmed(timer(Recorder<String>()), for: stage))
        XCTAssertEqual(impossible.all.count, 1)
        var running = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        XCTAssertFalse(running.retryTimerArmed(timer(Recorder<String>()), for: running.stage!))
        XCTAssertEqual(impossible.all.count, 2)
        guard case .running = running.state else { return XCTFail("ignored: \(running.state)") }
    }
}
