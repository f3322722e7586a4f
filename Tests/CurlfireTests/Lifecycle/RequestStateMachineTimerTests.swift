@testable import Curlfire
import XCTest

/// The machine holds the request's timers. The retry-delay timer is the `delayingRetry` state's own:
/// stored when the owner reports it armed, handed back for cancelling when the request leaves the stage
/// early, dropped when it fires. The deadline timer is armed once per request and handed back by every
/// `finish`. No libcurl, no network, no real timer.
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
        XCTAssertEqual(machine.retryTimerArmed(armed, for: machine.stage!).summary, .none, "kept")
        guard case .delayingRetry(_, armed?) = machine.state else { return XCTFail("\(machine.state)") }
        XCTAssertEqual(machine.cancel(discardingResumeData: false).summary, .finish(.cancelled, cancelling: [armed]))
        XCTAssertEqual(impossible.all, [])
    }

    func testThatTheDeadlineDuringARetryDelayHandsItsTimerBackToBeCancelled() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let armed = timer(Recorder<String>())
        XCTAssertEqual(machine.retryTimerArmed(armed, for: machine.stage!).summary, .none, "kept")
        XCTAssertEqual(machine.resourceDeadlineElapsed().summary, .finish(.resourceTimedOut, cancelling: [armed]))
        XCTAssertEqual(impossible.all, [])
    }

    func testThatAFiredTimerIsDroppedAndTheNextStageHoldsNoTimer() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let stage = machine.stage!
        XCTAssertEqual(machine.retryTimerArmed(timer(Recorder<String>()), for: stage).summary, .none, "kept")
        XCTAssertEqual(RequestStateMachineTests.name(machine.delayElapsed(for: stage)), "adapt")
        XCTAssertEqual(machine.cancel(discardingResumeData: false).summary, .finish(.cancelled), "nothing left to cancel")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatATimerArmedAfterTheStageWasLeftIsTheOwnersToCancel() {
        let impossible = Recorder<String>()
        var cancelled = delaying(impossible)
        let stage = cancelled.stage!
        XCTAssertEqual(cancelled.cancel(discardingResumeData: false).summary, .finish(.cancelled))
        let late = timer(Recorder<String>())
        XCTAssertEqual(cancelled.retryTimerArmed(late, for: stage).summary, .cancelTimer(late), "stale: not kept, cancel it")
        var fired = delaying(impossible)
        let firedStage = fired.stage!
        _ = fired.delayElapsed(for: firedStage) // fired before the owner reported it armed
        let afterFiring = timer(Recorder<String>())
        XCTAssertEqual(fired.retryTimerArmed(afterFiring, for: firedStage).summary, .cancelTimer(afterFiring))
        XCTAssertEqual(impossible.all, [], "a stage left meanwhile is stale, not impossible")
    }

    func testThatArmingTwiceOrOutsideARetryDelayIsImpossible() {
        let impossible = Recorder<String>()
        var machine = delaying(impossible)
        let stage = machine.stage!
        XCTAssertEqual(machine.retryTimerArmed(timer(Recorder<String>()), for: stage).summary, .none, "kept")
        XCTAssertEqual(machine.retryTimerArmed(timer(Recorder<String>()), for: stage).summary, .none, "twice: impossible")
        XCTAssertEqual(impossible.all.count, 1)
        var running = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        XCTAssertEqual(running.retryTimerArmed(timer(Recorder<String>()), for: running.stage!).summary, .none)
        XCTAssertEqual(impossible.all.count, 2)
        guard case .running = running.state else { return XCTFail("ignored: \(running.state)") }
    }

    func testThatTheDeadlineTimerIsAskedForOnceAndHandedBackByTheFinish() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "awaitingRetry", deadline: 5_000, impossible: impossible)
        XCTAssertEqual(machine.deadlineTimerNeeded().summary, .armDeadlineTimer(at: 5_000), "asked for with the deadline")
        XCTAssertEqual(machine.deadlineTimerNeeded().summary, .none, "armed once")
        let deadline = timer(Recorder<String>())
        XCTAssertEqual(machine.deadlineTimerArmed(deadline).summary, .none, "kept")
        XCTAssertEqual(machine.deadlineTimer, .armed(deadline))
        XCTAssertEqual(machine.retryDecided(.retry(after: 30), for: machine.stage!).summary,
                       .scheduleRetry(after: 30, machine.stage!))
        let retry = timer(Recorder<String>())
        XCTAssertEqual(machine.retryTimerArmed(retry, for: machine.stage!).summary, .none)
        XCTAssertEqual(machine.cancel(discardingResumeData: false).summary, .finish(.cancelled, cancelling: [retry, deadline]))
        XCTAssertEqual(machine.deadlineTimerNeeded().summary, .none, "a finished request arms nothing")
        XCTAssertEqual(impossible.all, [])
    }

    func testThatADeadlineTimerArmedAfterTheEndIsTheOwnersToCancel() {
        let impossible = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "adapting", deadline: 5_000, impossible: impossible)
        XCTAssertEqual(machine.deadlineTimerNeeded().summary, .armDeadlineTimer(at: 5_000))
        XCTAssertEqual(machine.cancel(discardingResumeData: false).summary, .finish(.cancelled), "asked for, not reported yet: nothing to hand back")
        let late = timer(Recorder<String>())
        XCTAssertEqual(machine.deadlineTimerArmed(late).summary, .cancelTimer(late), "armed after the end: cancel it")
        XCTAssertEqual(impossible.all, [])
        var unclaimed = RequestStateMachineTests.machine(in: "adapting", impossible: impossible)
        XCTAssertEqual(unclaimed.deadlineTimerArmed(timer(Recorder<String>())).summary, .none)
        XCTAssertEqual(impossible.all.count, 1, "a timer nobody claimed is impossible")
    }

    func testThatARequestWithoutADeadlineAsksForNoDeadlineTimer() {
        let impossible = Recorder<String>()
        for state in ["adapting", "awaitingRetry", "awaitingRedirect", "delaying"] {
            var machine = RequestStateMachineTests.machine(in: state, deadline: 0, impossible: impossible)
            XCTAssertEqual(machine.deadlineTimerNeeded().summary, .none, "\(state): no deadline, no timer")
            XCTAssertEqual(machine.deadlineTimer, .unarmed, state)
        }
        XCTAssertEqual(impossible.all, [])
    }
}
