@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The request state machine as a table: every (state, event) pair, suspended or not — the next
/// state, the action, and whether the pair is legal, stale or impossible (the table itself is in
/// RequestStateMachineTable.swift). No libcurl, no network, no sleeps.
final class RequestStateMachineTests: XCTestCase {
    typealias Machine = RequestStateMachine
    typealias Stage = RequestStateMachine.Stage

    /// What the retriers decided, by name (the machine's `failWithRetryError` carries a ``retryFailure``).
    enum Decision {
        case retry(after: TimeInterval), doNotRetry, failWithRetryError

        var machineDecision: Machine.RetryDecision {
            switch self {
            case let .retry(delay): return .retry(after: delay)
            case .doNotRetry: return .doNotRetry
            case .failWithRetryError: return .failWithRetryError(RequestStateMachineTests.retryFailure)
            }
        }
    }

    /// The retrier failure every table row's `failWithRetryError` carries.
    static let retryFailure = Machine.RetryFailure(retryError: CurlfireError.explicitlyCancelled,
                                                    originalError: .explicitlyCancelled)

    /// How the adapters ended, by name (the machine's ``RequestStateMachine/Adaptation`` carries the
    /// hop or the failure: ``hop`` and ``result``).
    enum Adapt {
        case succeeded, failed, refused

        var machineAdaptation: Machine.Adaptation {
            switch self {
            case .succeeded: return .succeeded(RequestStateMachineTests.hop, startedAt: 0)
            case .failed: return .failed(RequestStateMachineTests.result)
            case .refused: return .refused(RequestStateMachineTests.result)
            }
        }
    }

    /// The hop every table row's successful adaptation and followed redirect carries.
    static let hop = NextHop(request: URLRequest(url: URL(string: "https://table.test/")!), body: .none, credential: nil)
    /// The result every table row's failed adaptation and ended attempt carries.
    static let result = Machine.StageResult(outcome: Transfer.failedOutcome(.explicitlyCancelled, request: nil),
                                            retryableError: .explicitlyCancelled)

    /// An event fed to the machine, by name, so a table row reads as a sentence.
    enum Event {
        case start, cancel, suspend, resume, deadline
        case adapted(Adapt, stale: Bool = false)
        case ended(Machine.AttemptVerdict, stale: Bool = false)
        case redirect(follow: Bool, stale: Bool = false)
        case retry(Decision, stale: Bool = false)
        case delayElapsed(stale: Bool = false)
        /// Cache hook 1 reports its candidate (no stored entry in the table).
        case cacheConsulted(stale: Bool = false)
        /// A stage waits outside the engine: the deadline timer is asked for (``tableDeadline``).
        case deadlineTimerNeeded
        /// The owner reports a deadline timer armed (none was asked for in the table's machines).
        case deadlineTimerArmed
        /// The owner reports the retry delay's timer armed.
        case retryTimerArmed(stale: Bool = false)
    }

    /// The deadline every table machine starts with (monotonic nanoseconds): a request with a
    /// `timeoutIntervalForResource`, so `deadlineTimerNeeded` has a deadline to arm.
    static let tableDeadline: UInt64 = 5_000
    /// The timer every table row's timer report carries (it does nothing).
    static let tableTimer = Machine.StageTimer {}

    /// The first stage a machine issues: stale once a machine built `withHistory` has moved on.
    static let firstStage = Stage(attempt: 1, hop: 0, generation: 1)

    /// Feeds `event`; stage-bound events carry the current stage (a never-issued one when the machine
    /// has none), or with `stale` the first stage the machine issued, which it has left.
    @discardableResult
    static func feed(_ machine: inout Machine, _ event: Event) -> Machine.Action {
        let current = machine.stage ?? Stage(attempt: 0, hop: 0, generation: 0)
        func stage(_ stale: Bool) -> Stage { stale ? firstStage : current }
        switch event {
        case .start: return machine.start(deadline: tableDeadline)
        case .cancel: return machine.cancel(discardingResumeData: false)
        case .suspend: return machine.suspend()
        case .resume: return machine.resume(deadline: tableDeadline)
        case .deadline: return machine.resourceDeadlineElapsed()
        case let .adapted(adapt, stale): return machine.adapted(adapt.machineAdaptation, for: stage(stale))
        case let .ended(verdict, stale):
            var result = Self.result
            return machine.attemptEnded(verdict, result: &result, for: stage(stale))
        case let .redirect(follow, stale):
            return machine.redirectDecided(follow: follow, hop: follow ? Self.hop : nil, for: stage(stale))
        case let .retry(decision, stale): return machine.retryDecided(decision.machineDecision, for: stage(stale))
        case let .delayElapsed(stale): return machine.delayElapsed(for: stage(stale))
        case let .cacheConsulted(stale):
            machine.cacheConsulted(candidate: nil, for: stage(stale))
            return .none
        case .deadlineTimerNeeded: return machine.deadlineTimerNeeded()
        case .deadlineTimerArmed: return machine.deadlineTimerArmed(tableTimer)
        case let .retryTimerArmed(stale): return machine.retryTimerArmed(tableTimer, for: stage(stale))
        }
    }

    /// A machine driven to a named state; `suspended` calls `suspend()` first, `withHistory` goes
    /// through a failed first attempt and its retry first (so ``firstStage`` is one the machine left).
    /// Impossible pairs are recorded in `impossible` instead of stopping the test process.
    static func machine(in state: String, retriers: Bool = true, maximumRedirects: Int = 16, suspended: Bool = false,
                        withHistory: Bool = false, deadline: UInt64 = tableDeadline,
                        impossible: Recorder<String> = Recorder<String>()) -> Machine {
        var machine = Machine(hasRetriers: retriers, maximumRedirects: maximumRedirects,
                              reportImpossible: { impossible.append($0) })
        if suspended { _ = machine.suspend() }
        if withHistory, state != "idle" {
            _ = machine.start(deadline: deadline)
            for event: Event in [.adapted(.succeeded), .ended(.retryable), .retry(.retry(after: 0))] {
                feed(&machine, event)
            }
        }
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
        for event in (paths[state] ?? []).dropFirst(withHistory ? 1 : 0) {
            if case .start = event { _ = machine.start(deadline: deadline) } else { feed(&machine, event) }
        }
        return machine
    }

    /// The state's name, ignoring stage numbers.
    static func name(_ state: Machine.State) -> String {
        switch state {
        case .idle: return "idle"
        case .adapting: return "adapting"
        case .running: return "running"
        case .cancelling(_, .user, _): return "cancelling"
        case .cancelling(_, .resourceTimeout, _): return "timingOut"
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
        case .armDeadlineTimer: return "armDeadlineTimer"
        case .cancelTimer: return "cancelTimer"
        case .finish(.retryFailed, _, _): return "finish(retryFailed)" // its payload is not part of the name
        case let .finish(kind, _, _): return "finish(\(kind))"
        }
    }

    /// What a (state, event) pair is.
    enum Kind {
        /// The event belongs to the state (it may change nothing: `start` on a started request).
        case legal
        /// A late answer or timer of a stage the machine has left: ignored.
        case stale
        /// The owner can never send it in this state: reported (an `assertionFailure` outside tests), then ignored.
        case impossible
    }

    struct Row {
        let state: String
        let event: Event
        let next: String
        let action: String
        let kind: Kind
        /// Whether `suspend()` is in effect after the event.
        let suspendedAfter: Bool
        let file: StaticString
        let line: UInt
        init(_ state: String, _ event: Event, _ next: String, _ action: String, _ kind: Kind, suspendedAfter: Bool,
             file: StaticString = #filePath, line: UInt = #line) {
            (self.state, self.event, self.next, self.action) = (state, event, next, action)
            (self.kind, self.suspendedAfter, self.file, self.line) = (kind, suspendedAfter, file, line)
        }
    }

    /// Every state, by name.
    static let allStates = ["idle", "adapting", "running", "cancelling", "timingOut", "awaitingRedirect",
                            "awaitingRetry", "delaying", "finished"]
    /// Every event: the 7 not bound to a stage (the deadline timer's two among them), and the 15 bound
    /// ones for the current stage and for a stale one.
    static let allEvents: [Event] = {
        let bound: [(Bool) -> Event] = [
            { .adapted(.succeeded, stale: $0) }, { .adapted(.failed, stale: $0) }, { .adapted(.refused, stale: $0) },
            { .ended(.redirect, stale: $0) }, { .ended(.retryable, stale: $0) }, { .ended(.final, stale: $0) },
            { .redirect(follow: true, stale: $0) }, { .redirect(follow: false, stale: $0) },
            { .retry(.retry(after: 0), stale: $0) }, { .retry(.retry(after: 30), stale: $0) },
            { .retry(.doNotRetry, stale: $0) }, { .retry(.failWithRetryError, stale: $0) },
            { .delayElapsed(stale: $0) }, { .cacheConsulted(stale: $0) }, { .retryTimerArmed(stale: $0) },
        ]
        return [.start, .cancel, .suspend, .resume, .deadline, .deadlineTimerNeeded, .deadlineTimerArmed]
            + bound.map { $0(false) } + bound.map { $0(true) }
    }()

    func testTheTransitionTableListsEveryPairOnceSuspendedOrNot() {
        let expected = Set(Self.allStates.flatMap { state in Self.allEvents.map { "\(state) + \($0)" } })
        XCTAssertEqual(expected.count, 9 * 37)
        for rows in [Self.unsuspendedRows, Self.suspendedRows] {
            let listed = rows.map { "\($0.state) + \($0.event)" }
            XCTAssertEqual(listed.count, expected.count)
            XCTAssertEqual(Set(listed), expected, "missing: \(expected.subtracting(listed).sorted())")
        }
    }

    func testTheTransitionTable() {
        for (rows, suspended) in [(Self.unsuspendedRows, false), (Self.suspendedRows, true)] {
            for row in rows {
                let impossible = Recorder<String>()
                var machine = Self.machine(in: row.state, suspended: suspended, withHistory: true, impossible: impossible)
                let pair = "\(suspended ? "suspended " : "")\(row.state) + \(row.event)"
                XCTAssertEqual(Self.name(machine.state), row.state, "setting up \(pair)", file: row.file, line: row.line)
                XCTAssertEqual(machine.isSuspended, suspended, "setting up \(pair)", file: row.file, line: row.line)
                XCTAssertEqual(impossible.all, [], "setting up \(pair)", file: row.file, line: row.line)
                let action = Self.feed(&machine, row.event)
                XCTAssertEqual(Self.name(machine.state), row.next, pair, file: row.file, line: row.line)
                XCTAssertEqual(Self.name(action), row.action, pair, file: row.file, line: row.line)
                XCTAssertEqual(machine.isSuspended, row.suspendedAfter, pair, file: row.file, line: row.line)
                XCTAssertEqual(impossible.all.count, row.kind == .impossible ? 1 : 0,
                               "\(pair) is \(row.kind): \(impossible.all)", file: row.file, line: row.line)
                if row.kind != .legal {
                    XCTAssertEqual(action.summary, .none, "\(pair) is ignored", file: row.file, line: row.line)
                    XCTAssertEqual(Self.name(machine.state), row.state, "\(pair) is ignored", file: row.file, line: row.line)
                }
            }
        }
    }

    func testThatTheTableCountsAreTheOnesTheDocumentationGives() {
        // RequestStateMachine's doc comment and docs/Architecture.md quote these counts.
        for rows in [Self.unsuspendedRows, Self.suspendedRows] {
            XCTAssertEqual(rows.filter { $0.kind == .legal }.count, 83)
            XCTAssertEqual(rows.filter { $0.kind == .stale }.count, 127)
            XCTAssertEqual(rows.filter { $0.kind == .impossible }.count, 123)
        }
    }

    func testThatCancelEndsEveryWaitingStageAtOnceAndOnlyARunningAttemptWaitsForTheEngine() {
        for state in ["idle", "adapting", "awaitingRedirect", "awaitingRetry", "delaying"] {
            var machine = Self.machine(in: state)
            XCTAssertEqual(machine.cancel(discardingResumeData: false).summary, .finish(.cancelled), state)
            XCTAssertTrue(machine.isFinished, state)
        }
        var running = Self.machine(in: "running")
        guard case .cancelAttempt = running.cancel(discardingResumeData: false) else { return XCTFail("a running attempt is stopped by the engine") }
        XCTAssertFalse(running.isFinished)
    }

    func testThatWithoutRetriersFailuresAreDeliveredWithoutAsking() {
        var machine = Self.machine(in: "running", retriers: false)
        XCTAssertEqual(Self.feed(&machine, .ended(.retryable)).summary, .finish(.lastOutcome))
        var adapting = Self.machine(in: "adapting", retriers: false)
        XCTAssertEqual(Self.feed(&adapting, .adapted(.failed)).summary, .finish(.lastOutcome))
    }

    func testThatRedirectHopsAreCountedAndLimited() {
        var machine = Self.machine(in: "running", maximumRedirects: 2)
        for hop in 1...2 {
            XCTAssertEqual(Self.name(Self.feed(&machine, .ended(.redirect))), "askRedirectHandler")
            XCTAssertEqual(Self.name(Self.feed(&machine, .redirect(follow: true))), "startAttempt")
            XCTAssertEqual(machine.stage?.hop, hop)
            XCTAssertEqual(machine.stage?.attempt, 1)
        }
        XCTAssertEqual(Self.feed(&machine, .ended(.redirect)).summary, .finish(.tooManyRedirects))
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
        XCTAssertEqual(machine.adapted(Adapt.succeeded.machineAdaptation, for: hopStage!).summary, .none)
        XCTAssertEqual(Self.name(machine.state), "adapting")
    }

    func testThatAttemptsAreCountedWhenTheirAdaptationSucceedsOnly() {
        // retryCount: an attempt whose adapters failed was never started; a redirect hop is no new attempt.
        var machine = Self.machine(in: "adapting")
        XCTAssertEqual(machine.attemptsStarted, 0)
        Self.feed(&machine, .adapted(.failed))
        Self.feed(&machine, .retry(.retry(after: 0)))
        XCTAssertEqual(machine.attemptsStarted, 0)
        Self.feed(&machine, .adapted(.succeeded))
        XCTAssertEqual(machine.attemptsStarted, 1)
        Self.feed(&machine, .ended(.redirect))
        Self.feed(&machine, .redirect(follow: true))
        XCTAssertEqual(machine.attemptsStarted, 1)
        Self.feed(&machine, .ended(.retryable))
        Self.feed(&machine, .retry(.retry(after: 0)))
        Self.feed(&machine, .adapted(.succeeded))
        XCTAssertEqual(machine.attemptsStarted, 2)
    }

    func testThatAStageResultIsKeptOnlyWhenTheMachineTakesItsEvent() {
        func result(_ status: String) -> Machine.StageResult {
            Machine.StageResult(outcome: Transfer.failedOutcome(.invalidURL(url: status), request: nil),
                                retryableError: .invalidURL(url: status))
        }
        func kept(_ machine: Machine) -> String? {
            if case let .invalidURL(url)? = machine.lastResult?.outcome.error { return url }
            return nil
        }
        var machine = Self.machine(in: "running")
        let first = machine.stage!
        var ended = result("first")
        _ = machine.attemptEnded(.retryable, result: &ended, for: first)
        XCTAssertEqual(kept(machine), "first")
        _ = machine.retryDecided(.retry(after: 0), for: first)
        XCTAssertEqual(kept(machine), "first", "kept while the retry adapts: a cancel now delivers it")
        var stale = result("stale")
        _ = machine.attemptEnded(.final, result: &stale, for: first) // stale: dropped with its result
        XCTAssertEqual(kept(machine), "first")
        _ = machine.adapted(.failed(result("adapter")), for: machine.stage!)
        XCTAssertEqual(kept(machine), "adapter")
        XCTAssertEqual(machine.lastResult?.retryableError.map { "\($0)" }, "\(CurlfireError.invalidURL(url: "adapter"))")
    }

    func testThatTheDeadlineIsFixedByTheStartAndAStaleAdaptationChangesNothing() {
        /// When the Timeline of the attempt an action starts begins (`nil`: no attempt starts).
        func startedAt(_ action: Machine.Action) -> TimeInterval? {
            if case let .startAttempt(_, start) = action { return start.startedAt }
            return nil
        }
        var machine = Self.machine(in: "idle")
        _ = machine.start(deadline: 500)
        let first = machine.stage!
        XCTAssertEqual(startedAt(machine.adapted(.succeeded(Self.hop, startedAt: 10), for: first)), 10)
        XCTAssertEqual(machine.deadline, 500)
        var ended = Self.result
        _ = machine.attemptEnded(.retryable, result: &ended, for: first)
        _ = machine.retryDecided(.retry(after: 0), for: first)
        XCTAssertEqual(machine.start(deadline: 900).summary, .none)
        XCTAssertEqual(machine.resume(deadline: 900).summary, .none)
        let retried = machine.adapted(.succeeded(Self.hop, startedAt: 20), for: machine.stage!)
        XCTAssertEqual(machine.deadline, 500, "fixed once, for the whole request")
        XCTAssertEqual(startedAt(retried), 20, "each attempt's Timeline starts anew")
        let second = machine.stage
        XCTAssertNil(startedAt(machine.adapted(.succeeded(Self.hop, startedAt: 30), for: first)),
                     "a stage the machine left starts nothing")
        XCTAssertEqual(machine.stage, second, "and changes nothing")
    }

    func testThatSuspendAndResumeOfARunningAttemptPauseAndContinueIt() {
        var machine = Self.machine(in: "running")
        XCTAssertEqual(Self.name(machine.suspend()), "pauseAttempt")
        XCTAssertEqual(machine.suspend().summary, .none, "a second suspend does nothing")
        XCTAssertTrue(machine.isSuspended)
        XCTAssertEqual(Self.name(machine.resume(deadline: 0)), "unpauseAttempt")
        XCTAssertFalse(machine.isSuspended)
        XCTAssertEqual(machine.resume(deadline: 0).summary, .none)
    }

    func testThatASuspendedIdleRequestStartsOnResumeAndItsAttemptStartsPaused() {
        var machine = Self.machine(in: "idle")
        XCTAssertEqual(machine.suspend().summary, .none)
        XCTAssertEqual(Self.name(machine.resume(deadline: 0)), "adapt")
        var adapting = Self.machine(in: "adapting")
        _ = adapting.suspend()
        XCTAssertEqual(Self.name(Self.feed(&adapting, .adapted(.succeeded))), "startAttempt")
        XCTAssertTrue(adapting.isSuspended, "the engine adds the attempt paused")
    }

    func testThatSuspendAndResumeChangeNothingOnceTheRequestIsOverOrBeingCancelled() {
        for state in ["finished", "cancelling", "timingOut"] {
            var machine = Self.machine(in: state)
            XCTAssertFalse(machine.acceptsSuspension, state)
            XCTAssertEqual(machine.suspend().summary, .none, state)
            XCTAssertFalse(machine.isSuspended, "\(state): a suspend after the end is not recorded")
            XCTAssertEqual(machine.resume(deadline: 0).summary, .none, state)
        }
        // Suspended while running, then cancelled: a later resume neither continues nor reports anything.
        var machine = Self.machine(in: "running")
        _ = machine.suspend()
        _ = machine.cancel(discardingResumeData: false)
        XCTAssertEqual(machine.resume(deadline: 0).summary, .none)
        XCTAssertTrue(machine.isSuspended, "resume() after cancel() leaves the machine as it was")
        for state in ["idle", "adapting", "running", "awaitingRedirect", "awaitingRetry", "delaying"] {
            XCTAssertTrue(Self.machine(in: state).acceptsSuspension, state)
        }
    }

    func testThatCancelRacingTheEngineEndsOnceWhicheverComesFirst() {
        // The attempt ends on its own just as the user cancels: the first event wins, the other is a no-op.
        var endedFirst = Self.machine(in: "running")
        XCTAssertEqual(Self.feed(&endedFirst, .ended(.final)).summary, .finish(.lastOutcome))
        XCTAssertEqual(endedFirst.cancel(discardingResumeData: false).summary, .none)
        var cancelledFirst = Self.machine(in: "running")
        _ = cancelledFirst.cancel(discardingResumeData: false)
        XCTAssertEqual(Self.feed(&cancelledFirst, .ended(.final)).summary, .finish(.cancelled))
        XCTAssertEqual(Self.feed(&cancelledFirst, .ended(.final)).summary, .none)
    }
}
