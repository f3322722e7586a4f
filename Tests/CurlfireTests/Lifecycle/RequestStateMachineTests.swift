@testable import Curlfire
import Foundation
import XCTest

/// The request state machine as a table: for each state, every event, the next state and the
/// action — including `cancel` in every state and late events from an abandoned stage. No libcurl,
/// no network, no sleeps.
final class RequestStateMachineTests: XCTestCase {
    typealias Machine = RequestStateMachine
    typealias Stage = RequestStateMachine.Stage

    /// An event fed to the machine, by name, so a table row reads as a sentence.
    enum Event: CustomStringConvertible {
        case start, cancel, suspend, resume, deadline
        case adapted(Machine.Adaptation, stale: Bool = false)
        case ended(Machine.AttemptVerdict, stale: Bool = false)
        case redirect(follow: Bool, stale: Bool = false)
        case retry(Machine.RetryDecision, stale: Bool = false)
        case delayElapsed(stale: Bool = false)

        var description: String { String(describing: self as Any) }
    }

    /// Feeds `event`; stage-bound events carry the current stage, or a stale one.
    @discardableResult
    static func feed(_ machine: inout Machine, _ event: Event) -> Machine.Action {
        let current = machine.stage ?? Stage(attempt: 0, hop: 0, generation: 0)
        func stage(_ stale: Bool) -> Stage {
            stale ? Stage(attempt: current.attempt, hop: current.hop, generation: current.generation &+ 100) : current
        }
        switch event {
        case .start: return machine.start()
        case .cancel: return machine.cancel()
        case .suspend: return machine.suspend()
        case .resume: return machine.resume()
        case .deadline: return machine.resourceDeadlineElapsed()
        case let .adapted(result, stale): return machine.adapted(result, for: stage(stale))
        case let .ended(verdict, stale): return machine.attemptEnded(verdict, for: stage(stale))
        case let .redirect(follow, stale): return machine.redirectDecided(follow: follow, for: stage(stale))
        case let .retry(decision, stale): return machine.retryDecided(decision, for: stage(stale))
        case let .delayElapsed(stale): return machine.delayElapsed(for: stage(stale))
        }
    }

    /// A machine driven to a named state.
    static func machine(in state: String, retriers: Bool = true, maximumRedirects: Int = 16) -> Machine {
        var machine = Machine(hasRetriers: retriers, maximumRedirects: maximumRedirects)
        let paths: [String: [Event]] = [
            "idle": [],
            "adapting": [.start],
            "running": [.start, .adapted(.succeeded)],
            "cancelling": [.start, .adapted(.succeeded), .cancel],
            "timingOut": [.start, .adapted(.succeeded), .deadline],
            "awaitingRedirect": [.start, .adapted(.succeeded), .ended(.redirect)],
            "awaitingRetry": [.start, .adapted(.succeeded), .ended(.retryable)],
            "delaying": [.start, .adapted(.succeeded), .ended(.retryable), .retry(.retry(after: 30))],
            "finished": [.start, .adapted(.succeeded), .ended(.final)],
        ]
        for event in paths[state] ?? [] { feed(&machine, event) }
        return machine
    }

    /// The state's name, ignoring stage numbers.
    static func name(_ state: Machine.State) -> String {
        switch state {
        case .idle: return "idle"
        case .adapting: return "adapting"
        case .running: return "running"
        case .cancelling(_, .user): return "cancelling"
        case .cancelling(_, .resourceTimeout): return "timingOut"
        case .awaitingRedirectDecision: return "awaitingRedirect"
        case .awaitingRetryDecision: return "awaitingRetry"
        case .delayingRetry: return "delaying"
        case .finished: return "finished"
        }
    }

    /// The action's name, ignoring stage numbers.
    static func name(_ action: Machine.Action) -> String {
        switch action {
        case .none: return "none"
        case .adapt: return "adapt"
        case .startAttempt: return "startAttempt"
        case .cancelAttempt: return "cancelAttempt"
        case .pauseAttempt: return "pauseAttempt"
        case .unpauseAttempt: return "unpauseAttempt"
        case .askRedirectHandler: return "askRedirectHandler"
        case .askRetriers: return "askRetriers"
        case let .scheduleRetry(delay, _): return "scheduleRetry(\(delay))"
        case let .finish(kind): return "finish(\(kind))"
        }
    }

    struct Row {
        let state: String
        let event: Event
        let next: String
        let action: String
        let line: UInt
        init(_ state: String, _ event: Event, _ next: String, _ action: String, line: UInt = #line) {
            (self.state, self.event, self.next, self.action, self.line) = (state, event, next, action, line)
        }
    }

    func testTheTransitionTable() {
        let rows: [Row] = [
            // idle
            Row("idle", .start, "adapting", "adapt"),
            Row("idle", .resume, "adapting", "adapt"),
            Row("idle", .cancel, "finished", "finish(cancelled)"),
            Row("idle", .suspend, "idle", "none"),
            Row("idle", .deadline, "idle", "none"),
            Row("idle", .adapted(.succeeded), "idle", "none"),
            Row("idle", .ended(.final), "idle", "none"),
            // adapting
            Row("adapting", .start, "adapting", "none"),
            Row("adapting", .adapted(.succeeded), "running", "startAttempt"),
            Row("adapting", .adapted(.failed), "awaitingRetry", "askRetriers"),
            Row("adapting", .adapted(.refused), "finished", "finish(lastOutcome)"),
            Row("adapting", .adapted(.succeeded, stale: true), "adapting", "none"),
            Row("adapting", .cancel, "finished", "finish(cancelled)"),
            Row("adapting", .deadline, "finished", "finish(resourceTimedOut)"),
            Row("adapting", .suspend, "adapting", "none"),
            Row("adapting", .ended(.final), "adapting", "none"),
            Row("adapting", .retry(.doNotRetry), "adapting", "none"),
            // running
            Row("running", .ended(.final), "finished", "finish(lastOutcome)"),
            Row("running", .ended(.retryable), "awaitingRetry", "askRetriers"),
            Row("running", .ended(.redirect), "awaitingRedirect", "askRedirectHandler"),
            Row("running", .ended(.final, stale: true), "running", "none"),
            Row("running", .cancel, "cancelling", "cancelAttempt"),
            Row("running", .deadline, "timingOut", "cancelAttempt"),
            Row("running", .suspend, "running", "pauseAttempt"),
            Row("running", .resume, "running", "none"),
            Row("running", .start, "running", "none"),
            Row("running", .adapted(.succeeded), "running", "none"),
            Row("running", .redirect(follow: true), "running", "none"),
            Row("running", .delayElapsed(), "running", "none"),
            // cancelling: waits only for the engine to remove the attempt
            Row("cancelling", .ended(.final), "finished", "finish(cancelled)"),
            Row("cancelling", .ended(.retryable), "finished", "finish(cancelled)"),
            Row("cancelling", .ended(.redirect), "finished", "finish(cancelled)"),
            Row("cancelling", .ended(.final, stale: true), "cancelling", "none"),
            Row("cancelling", .cancel, "cancelling", "none"),
            Row("cancelling", .deadline, "cancelling", "none"),
            Row("timingOut", .ended(.final), "finished", "finish(resourceTimedOut)"),
            Row("timingOut", .cancel, "timingOut", "none"),
            // awaiting a redirect decision
            Row("awaitingRedirect", .redirect(follow: true), "running", "startAttempt"),
            Row("awaitingRedirect", .redirect(follow: false), "finished", "finish(lastOutcome)"),
            Row("awaitingRedirect", .redirect(follow: true, stale: true), "awaitingRedirect", "none"),
            Row("awaitingRedirect", .cancel, "finished", "finish(cancelled)"),
            Row("awaitingRedirect", .deadline, "finished", "finish(resourceTimedOut)"),
            Row("awaitingRedirect", .ended(.final), "awaitingRedirect", "none"),
            // awaiting a retry decision
            Row("awaitingRetry", .retry(.retry(after: 0)), "adapting", "adapt"),
            Row("awaitingRetry", .retry(.retry(after: 30)), "delaying", "scheduleRetry(30.0)"),
            Row("awaitingRetry", .retry(.doNotRetry), "finished", "finish(lastOutcome)"),
            Row("awaitingRetry", .retry(.failWithRetryError), "finished", "finish(retryFailed)"),
            Row("awaitingRetry", .retry(.retry(after: 0), stale: true), "awaitingRetry", "none"),
            Row("awaitingRetry", .cancel, "finished", "finish(cancelled)"),
            Row("awaitingRetry", .deadline, "finished", "finish(resourceTimedOut)"),
            Row("awaitingRetry", .suspend, "awaitingRetry", "none"),
            // delaying a retry
            Row("delaying", .delayElapsed(), "adapting", "adapt"),
            Row("delaying", .delayElapsed(stale: true), "delaying", "none"),
            Row("delaying", .cancel, "finished", "finish(cancelled)"),
            Row("delaying", .deadline, "finished", "finish(resourceTimedOut)"),
            Row("delaying", .retry(.retry(after: 0)), "delaying", "none"),
            // finished: nothing moves it
            Row("finished", .start, "finished", "none"),
            Row("finished", .cancel, "finished", "none"),
            Row("finished", .resume, "finished", "none"),
            Row("finished", .suspend, "finished", "none"),
            Row("finished", .deadline, "finished", "none"),
            Row("finished", .ended(.final), "finished", "none"),
            Row("finished", .retry(.retry(after: 0)), "finished", "none"),
            Row("finished", .delayElapsed(), "finished", "none"),
            Row("finished", .redirect(follow: true), "finished", "none"),
        ]
        for row in rows {
            var machine = Self.machine(in: row.state)
            XCTAssertEqual(Self.name(machine.state), row.state, "setting up \(row.state)", line: row.line)
            let action = Self.feed(&machine, row.event)
            XCTAssertEqual(Self.name(machine.state), row.next, "\(row.state) + \(row.event)", line: row.line)
            XCTAssertEqual(Self.name(action), row.action, "\(row.state) + \(row.event)", line: row.line)
        }
    }

    func testThatCancelEndsEveryWaitingStageAtOnceAndOnlyARunningAttemptWaitsForTheEngine() {
        for state in ["idle", "adapting", "awaitingRedirect", "awaitingRetry", "delaying"] {
            var machine = Self.machine(in: state)
            XCTAssertEqual(machine.cancel(), .finish(.cancelled), state)
            XCTAssertTrue(machine.isFinished, state)
        }
        var running = Self.machine(in: "running")
        guard case .cancelAttempt = running.cancel() else { return XCTFail("a running attempt is stopped by the engine") }
        XCTAssertFalse(running.isFinished)
    }

    func testThatWithoutRetriersFailuresAreDeliveredWithoutAsking() {
        var machine = Self.machine(in: "running", retriers: false)
        XCTAssertEqual(Self.feed(&machine, .ended(.retryable)), .finish(.lastOutcome))
        var adapting = Self.machine(in: "adapting", retriers: false)
        XCTAssertEqual(Self.feed(&adapting, .adapted(.failed)), .finish(.lastOutcome))
    }

    func testThatRedirectHopsAreCountedAndLimited() {
        var machine = Self.machine(in: "running", maximumRedirects: 2)
        for hop in 1...2 {
            XCTAssertEqual(Self.name(Self.feed(&machine, .ended(.redirect))), "askRedirectHandler")
            XCTAssertEqual(Self.name(Self.feed(&machine, .redirect(follow: true))), "startAttempt")
            XCTAssertEqual(machine.stage?.hop, hop)
            XCTAssertEqual(machine.stage?.attempt, 1)
        }
        XCTAssertEqual(Self.feed(&machine, .ended(.redirect)), .finish(.tooManyRedirects))
    }

    func testThatEachRetryIsANewAttemptWithANewGenerationAndHopZero() {
        var machine = Self.machine(in: "running")
        Self.feed(&machine, .ended(.redirect))
        Self.feed(&machine, .redirect(follow: true))
        let hopStage = machine.stage
        Self.feed(&machine, .ended(.retryable))
        Self.feed(&machine, .retry(.retry(after: 0)))
        XCTAssertEqual(machine.stage?.attempt, 2)
        XCTAssertEqual(machine.stage?.hop, 0)
        XCTAssertGreaterThan(machine.stage?.generation ?? 0, hopStage?.generation ?? .max)
        // An answer for the earlier stage changes nothing.
        XCTAssertEqual(machine.adapted(.succeeded, for: hopStage!), .none)
        XCTAssertEqual(Self.name(machine.state), "adapting")
    }

    func testThatSuspendAndResumeOfARunningAttemptPauseAndContinueIt() {
        var machine = Self.machine(in: "running")
        XCTAssertEqual(Self.name(machine.suspend()), "pauseAttempt")
        XCTAssertEqual(machine.suspend(), .none, "a second suspend does nothing")
        XCTAssertTrue(machine.isSuspended)
        XCTAssertEqual(Self.name(machine.resume()), "unpauseAttempt")
        XCTAssertFalse(machine.isSuspended)
        XCTAssertEqual(machine.resume(), .none)
    }

    func testThatASuspendedIdleRequestStartsOnResumeAndItsAttemptStartsPaused() {
        var machine = Self.machine(in: "idle")
        XCTAssertEqual(machine.suspend(), .none)
        XCTAssertEqual(Self.name(machine.resume()), "adapt")
        var adapting = Self.machine(in: "adapting")
        _ = adapting.suspend()
        XCTAssertEqual(Self.name(Self.feed(&adapting, .adapted(.succeeded))), "startAttempt")
        XCTAssertTrue(adapting.isSuspended, "the engine adds the attempt paused")
    }

    func testThatSuspendAndResumeChangeNothingOnceTheRequestIsOverOrBeingCancelled() {
        for state in ["finished", "cancelling", "timingOut"] {
            var machine = Self.machine(in: state)
            XCTAssertFalse(machine.acceptsSuspension, state)
            XCTAssertEqual(machine.suspend(), .none, state)
            XCTAssertFalse(machine.isSuspended, "\(state): a suspend after the end is not recorded")
            XCTAssertEqual(machine.resume(), .none, state)
        }
        // Suspended while running, then cancelled: a later resume neither continues nor reports anything.
        var machine = Self.machine(in: "running")
        _ = machine.suspend()
        _ = machine.cancel()
        XCTAssertEqual(machine.resume(), .none)
        XCTAssertTrue(machine.isSuspended, "resume() after cancel() leaves the machine as it was")
        for state in ["idle", "adapting", "running", "awaitingRedirect", "awaitingRetry", "delaying"] {
            XCTAssertTrue(Self.machine(in: state).acceptsSuspension, state)
        }
    }

    func testThatCancelRacingTheEngineEndsOnceWhicheverComesFirst() {
        // The attempt ends on its own just as the user cancels: the first event wins, the other is a no-op.
        var endedFirst = Self.machine(in: "running")
        XCTAssertEqual(Self.feed(&endedFirst, .ended(.final)), .finish(.lastOutcome))
        XCTAssertEqual(endedFirst.cancel(), .none)
        var cancelledFirst = Self.machine(in: "running")
        _ = cancelledFirst.cancel()
        XCTAssertEqual(Self.feed(&cancelledFirst, .ended(.final)), .finish(.cancelled))
        XCTAssertEqual(Self.feed(&cancelledFirst, .ended(.final)), .none)
    }
}
