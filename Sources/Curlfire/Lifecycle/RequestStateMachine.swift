import Foundation

/// The life of one request as a value: it takes events and returns the action to carry out.
///
/// ``Transfer`` owns one, under its lock: it feeds an event, gets an ``Action``, unlocks, then
/// performs the action (hand an attempt to the engine, run the adapters, ask the retriers or the
/// redirect handler, arm a timer, deliver the outcome). The machine never calls out and touches no
/// libcurl, so every (state, event) pair is unit-tested as a table (RequestStateMachineTests).
///
/// The machine also holds what the request has (issue 24 point 1; docs/notes-core4.md): how it
/// finished, the hops of the running attempt (``HopChain``; the hop it sends travels from the event
/// that makes it to the ``Action/startAttempt(_:_:)`` action), the
/// retry-delay and deadline timers (``StageTimer``, handed back by ``Action/finish(_:outcome:cancelling:)``),
/// what the last stage left (``StageResult``), the retrier's failure (``RetryFailure``), the attempt
/// count, the deadline, the cache candidate, a download's resume plan, and the handlers with the
/// outcome they get (``Delivery``). `Transfer` keeps no lifecycle data beside it.
///
/// ```
///            start                adapted ok                attempt ended (final)
///  idle ───────────▶ adapting ─────────────▶ running ─────────────────────────▶ finished
///                      ▲   │ adapted failed    │  │ attempt ended (redirect)        ▲
///                      │   ▼                   │  ▼                                 │
///                      │ awaitingRetryDecision ◀┘ awaitingRedirectDecision ─────────┤ (do not follow)
///                      │   │ retry (delay)          │ follow: running, next hop      │
///                      │   ▼                                                         │
///                      └─ delayingRetry ─────────────────────────────────────────────┤ (deadline)
///                                                                                    │
///  cancel: idle, adapting, awaiting…, delayingRetry ─▶ finished at once             │
///          running ─▶ cancelling ─(the engine removes the attempt)──────────────────┘
/// ```
///
/// Every event that belongs to a stage carries that stage; an event for a stage the machine has
/// left (a late adapter, retrier or redirect-handler callback, a timer that fired after a cancel)
/// is stale: it returns ``Action/none`` and changes nothing. A pair the owner can never send — a
/// stage-bound event while idle (no stage issued yet), the deadline while idle (its timer is armed
/// by a stage), or an answer for the current stage in a state that did not ask for it — is
/// impossible: a programming error reported to `reportImpossible` (``assertImpossible(_:)``, an
/// `assertionFailure`, by default), then ignored like a stale one.
///
/// Events carry what the stage that sends them produced: the start carries the request's deadline,
/// an adaptation its hop (or its failure), an ended attempt its ``StageResult`` (the machine adds the
/// redirects before the hop to its metrics, and keeps a download's resume plan), a followed redirect
/// its next hop, the cache hook its candidate. The owner reports nothing with a call that is no event.
///
/// The timers are events too: a stage that waits outside the engine asks for the deadline timer
/// (``deadlineTimerNeeded()`` → ``Action/armDeadlineTimer(at:)``), and the owner reports each timer it
/// armed (``deadlineTimerArmed(_:)``, ``retryTimerArmed(_:for:)``); the machine keeps it, or answers
/// ``Action/cancelTimer(_:)`` when the request or the stage is over.
///
/// RequestStateMachineTests lists every pair: 9 states × 37 events (the 7 not bound to a stage —
/// start, cancel, suspend, resume, deadline, deadlineTimerNeeded, deadlineTimerArmed — and the 15
/// stage-bound ones, each for the current stage and for a stage the machine left), for a request
/// never suspended and after `suspend()`: 666 rows, each half 83 legal, 127 stale and 123 impossible.
struct RequestStateMachine: Sendable {
    /// One step of the request: which attempt (1 + retries), which redirect hop inside it, and a
    /// generation that changes with every new stage, so late events of an abandoned stage are told apart.
    struct Stage: Equatable, Sendable {
        /// 1 for the first attempt, 2 after the first retry, …
        var attempt: Int
        /// Redirects followed in this attempt.
        var hop: Int
        /// Increases with every new stage of the request.
        var generation: UInt64
    }

    /// Why a running attempt is being stopped.
    enum CancelCause: Equatable, Sendable {
        /// `cancel()`, or the awaiting task was cancelled.
        case user
        /// `timeoutIntervalForResource` elapsed.
        case resourceTimeout
    }

    /// Where the request is.
    enum State: Equatable, Sendable {
        /// Not started.
        case idle
        /// The adapters are preparing the stage's request.
        case adapting(Stage)
        /// An attempt is in the engine.
        case running(Stage, HopChain = HopChain())
        /// The engine was asked to stop the attempt; the request ends when it reports back.
        case cancelling(Stage, CancelCause, HopChain = HopChain())
        /// The redirect handler decides whether to follow.
        case awaitingRedirectDecision(Stage, HopChain = HopChain())
        /// The retriers decide whether to try again.
        case awaitingRetryDecision(Stage)
        /// A retry waits for its delay, on the timer the owner armed for it (`nil` until the owner
        /// reports it with ``retryTimerArmed(_:for:)``); leaving the stage early cancels the timer.
        case delayingRetry(Stage, timer: StageTimer? = nil)
        /// Over, and how: the outcome is (being) delivered. `.finished(.cancelled)` is a request that
        /// `cancel()` ended (``RequestState/cancelled``), with or without an attempt to stop first.
        case finished(Finish)
    }

    /// What the owner must do now, with what it needs to do it: the owner reads nothing back from
    /// the machine to carry an action out. (Not `Equatable`: outcomes and hops are not; the tests
    /// compare an action's summary.)
    enum Action: Sendable {
        /// Nothing.
        case none
        /// Run the adapters for the stage (a first attempt or a retry).
        case adapt(Stage)
        /// Hand the stage's attempt to the engine (after adapting, or the next redirect hop): what it
        /// sends, when its Timeline starts, the request's deadline, and where a retried download continues.
        case startAttempt(Stage, AttemptStart)
        /// Ask the engine to stop the running attempt.
        case cancelAttempt(Stage)
        /// Ask the engine to pause the running attempt.
        case pauseAttempt(Stage)
        /// Ask the engine to continue the running attempt.
        case unpauseAttempt(Stage)
        /// Ask the redirect handler about the stage's 3xx: the outcome of the hop that got it.
        case askRedirectHandler(Stage, TransferOutcome)
        /// Ask the retriers about the stage's failure: the error they are asked about.
        case askRetriers(Stage, CurlfireError)
        /// Arm a timer; ``delayElapsed(for:)`` follows.
        case scheduleRetry(after: TimeInterval, Stage)
        /// Arm the request's deadline timer for this deadline (monotonic nanoseconds), report it with
        /// ``deadlineTimerArmed(_:)``; ``resourceDeadlineElapsed()`` follows when it fires.
        case armDeadlineTimer(at: UInt64)
        /// Cancel a timer the machine does not keep: it was armed for a stage the request has left, or
        /// after the request ended.
        case cancelTimer(StageTimer)
        /// Deliver the outcome, and cancel the timers in `cancelling`: the deadline timer if it was
        /// armed, and the retry-delay timer of a delay the request left early (`cancel()` or the
        /// deadline while ``State/delayingRetry(_:timer:)``). `outcome` is the last stage's (with a
        /// download's resume plan), which `kind` may turn into an error; `nil` when no stage ended yet.
        case finish(Finish, outcome: TransferOutcome?, cancelling: [StageTimer])
    }

    private(set) var state: State = .idle
    /// The handlers and the outcome they get (RequestStateMachine+Payloads.swift; the calls are under
    /// "Delivery" below); it leaves
    /// ``Delivery/collecting(_:)`` only once ``state`` is ``State/finished(_:)``.
    private(set) var delivery: Delivery = .collecting(HandlerList())
    /// The timer of `timeoutIntervalForResource` outside the engine (request-level: armed once, by
    /// the first stage that waits outside the engine; handed back by the `finish` action).
    private(set) var deadlineTimer: DeadlineTimer = .unarmed
    /// Attempts handed to the engine's planning so far (1 + retries once the first attempt started):
    /// counted when adapting succeeds; an attempt whose adaptation failed is not counted. `retryCount`.
    private(set) var attemptsStarted = 0
    /// What the latest stage that ended left: the outcome the request ends with unless a later stage
    /// replaces it, and the error the retriers are asked about. Set by the `result` of
    /// ``adapted(_:for:)`` and ``attemptEnded(_:result:for:)`` when the machine takes the event
    /// (a stale stage's result is dropped with it); the actions that ask the redirect handler or the
    /// retriers, and the one that finishes, carry what they need of it.
    private(set) var lastResult: StageResult?
    /// The request's `timeoutIntervalForResource` deadline, monotonic nanoseconds (`IdleClock.now()`);
    /// 0 before the start, or when there is none. Fixed by ``start(deadline:)`` (or ``resume(deadline:)``).
    private(set) var deadline: UInt64 = 0
    /// cache: the stored entry the first hop was made conditional on, or may serve on an error
    /// (``cacheConsulted(candidate:for:)``).
    private(set) var cacheCandidate: CachedEntry?
    /// parity: where a retried download continues, updated by each ended attempt's
    /// ``StageResult/retryResume``.
    private(set) var downloadResume: FileSink.Plan?
    /// The metrics of every hop that ended so far, oldest first (``TransferOutcome/allMetrics``),
    /// each with the redirects before it counted.
    private(set) var metricsHistory: MetricsHistory = []
    /// parity: whether a `cancel(discardingResumeData: true)` reached the request before it finished
    /// (the `finish` action's outcome then says so).
    private(set) var discardsResumeData = false
    /// Whether `suspend()` is in effect (an attempt started while suspended starts paused).
    private(set) var isSuspended = false
    /// Whether retriers exist (with none, a failure is delivered without asking).
    let hasRetriers: Bool
    /// The most redirects followed in one attempt.
    let maximumRedirects: Int
    private var generation: UInt64 = 0
    /// Told of every impossible (state, event) pair, described: ``assertImpossible(_:)`` — a
    /// programming error that stops debug builds — unless a test observes them instead.
    private let reportImpossible: @Sendable (String) -> Void

    /// Creates a machine in ``State/idle``.
    ///
    /// - Parameter reportImpossible: Called with a description of each impossible (state, event)
    ///   pair, which the machine then ignores. ``assertImpossible(_:)`` by default.
    init(hasRetriers: Bool, maximumRedirects: Int,
         reportImpossible: @escaping @Sendable (String) -> Void = RequestStateMachine.assertImpossible) {
        self.hasRetriers = hasRetriers
        self.maximumRedirects = maximumRedirects
        self.reportImpossible = reportImpossible
    }

    /// The default report of an impossible pair: `assertionFailure` (nothing in release builds, where
    /// the event is ignored like a stale one).
    @Sendable static func assertImpossible(_ pair: String) {
        assertionFailure("RequestStateMachine: impossible event \(pair)")
    }

    /// An event bound to `stage` that the current state does not take. A stage the machine has left
    /// (an answer or a timer of a stage that was abandoned or already answered) makes it stale: ignored.
    /// The current stage, a stage never issued, or any stage while idle makes it impossible: the
    /// owner sends each stage's answer once, and only in the state that asked for it.
    private func unexpected(_ event: StaticString, for stage: Stage) -> Action {
        if isImpossible(for: stage) { reportImpossible("\(event) for \(stage) in \(state)") }
        return .none
    }

    /// Whether an event bound to `stage` that the current state does not take is impossible (the
    /// current stage, a stage never issued, any stage while idle) rather than stale (a stage left).
    private func isImpossible(for stage: Stage) -> Bool {
        if case .idle = state { return true }
        return stage == self.stage || stage.generation > generation
    }

    /// The stage the machine is in, if any.
    var stage: Stage? {
        switch state {
        case .idle, .finished: return nil
        case let .adapting(stage), let .running(stage, _), let .cancelling(stage, _, _), let .awaitingRedirectDecision(stage, _),
             let .awaitingRetryDecision(stage), let .delayingRetry(stage, _):
            return stage
        }
    }

    /// Whether the request has started.
    var isStarted: Bool { state != .idle }

    /// Whether the request is over.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Enters ``State/finished(_:)`` and says how to end the request (with the timer of a retry
    /// delay the request leaves, to cancel).
    private mutating func finishing(_ kind: Finish) -> Action {
        var timers: [StageTimer] = []
        if case let .delayingRetry(_, armed?) = state { timers.append(armed) }
        if case let .armed(deadline) = deadlineTimer {
            timers.append(deadline)
            deadlineTimer = .arming // handed back: a finished request arms nothing again
        }
        state = .finished(kind)
        // Taken: no stage result still shares the outcome, so the changes below copy none of its fields.
        var outcome = lastResult.take()?.outcome
        outcome?.retryResume = downloadResume // parity: where a retry would have continued
        if discardsResumeData { outcome?.discardsResumeData = true } // parity: cancel(createResumeData: false)
        if let cacheCandidate { outcome?.cacheCandidate = cacheCandidate } // cache: hook 2 merges a 304 into it
        return .finish(kind, outcome: outcome, cancelling: timers)
    }

    private mutating func nextStage(attempt: Int, hop: Int) -> Stage {
        generation += 1
        return Stage(attempt: attempt, hop: hop, generation: generation)
    }

    // MARK: - Events from the user

    /// The first handler was attached, or `resume()` was called on an idle request.
    ///
    /// - Parameter deadline: When `timeoutIntervalForResource` ends the request, monotonic
    ///   nanoseconds (`IdleClock.now()`), 0 for never: fixed by the start, for the request's life.
    mutating func start(deadline: UInt64) -> Action {
        guard case .idle = state else { return .none }
        self.deadline = deadline
        let stage = nextStage(attempt: 1, hop: 0)
        state = .adapting(stage)
        return .adapt(stage)
    }

    /// `cancel()`: valid in every state, never waits for a stage to end.
    ///
    /// - Parameter discardingResumeData: parity: `DownloadRequest.cancel(createResumeData: false)`: the
    ///   outcome then drops a download's partial file and gives no resume data. It applies while the
    ///   request is not finished — also to a cancel already in flight (`cancelling`), whose outcome is
    ///   not made yet — and never to a finished request.
    mutating func cancel(discardingResumeData: Bool) -> Action {
        if discardingResumeData, !isFinished { discardsResumeData = true }
        switch state {
        case .finished, .cancelling:
            return .none
        case let .running(stage, chain):
            state = .cancelling(stage, .user, chain)
            return .cancelAttempt(stage)
        case .idle, .adapting, .awaitingRedirectDecision, .awaitingRetryDecision, .delayingRetry:
            return finishing(.cancelled)
        }
    }

    /// Whether `suspend()` and `resume()` still mean something: not once the request is over or
    /// being cancelled (they change nothing there, and no `DidSuspend`/`DidResume` is posted).
    var acceptsSuspension: Bool {
        switch state {
        case .finished, .cancelling: return false
        default: return true
        }
    }

    /// `suspend()`: nothing once the request is over or being cancelled.
    mutating func suspend() -> Action {
        guard !isSuspended, acceptsSuspension else { return .none }
        isSuspended = true
        if case let .running(stage, _) = state { return .pauseAttempt(stage) }
        return .none
    }

    /// `resume()`: starts an idle request, or continues a suspended one.
    ///
    /// - Parameter deadline: The request's deadline if this starts it (as for ``start(deadline:)``).
    mutating func resume(deadline: UInt64) -> Action {
        guard acceptsSuspension else { return .none }
        let wasSuspended = isSuspended
        isSuspended = false
        if case .idle = state { return start(deadline: deadline) }
        if wasSuspended, case let .running(stage, _) = state { return .unpauseAttempt(stage) }
        return .none
    }

    /// `timeoutIntervalForResource` elapsed (timer armed when the request started).
    mutating func resourceDeadlineElapsed() -> Action {
        switch state {
        case .idle:
            // The deadline timer is armed by the stages (adapters, retriers, redirect handlers), never before.
            reportImpossible("resourceDeadlineElapsed in idle")
            return .none
        case .finished, .cancelling:
            return .none
        case let .running(stage, chain):
            state = .cancelling(stage, .resourceTimeout, chain)
            return .cancelAttempt(stage)
        case .adapting, .awaitingRedirectDecision, .awaitingRetryDecision, .delayingRetry:
            return finishing(.resourceTimedOut)
        }
    }

    // MARK: - Events from the stages

    /// How the adapters ended for a stage, with what they leave.
    enum Adaptation: Sendable {
        /// The stage's request is ready: the hop it sends (the adapted request, the body and the
        /// credentials), and when its adapters began (the attempt's Timeline starts there).
        case succeeded(NextHop, startedAt: TimeInterval)
        /// An adapter failed: the retriers are asked (the token-refresh pattern, as in Alamofire 4 and
        /// 5) about the result's error; the failure is the outcome unless a retry replaces it.
        case failed(StageResult)
        /// The request cannot be built at all (an invalid URL, an encoding failure): no retrier is
        /// asked; the failure is the outcome.
        case refused(StageResult)
    }

    /// The adapters produced the stage's request, or failed.
    mutating func adapted(_ adaptation: Adaptation, for stage: Stage) -> Action {
        guard case .adapting(stage) = state else { return unexpected("adapted", for: stage) }
        switch adaptation {
        case let .succeeded(hop, startedAt):
            attemptsStarted += 1
            state = .running(stage, HopChain()) // a new attempt starts a new chain of hops
            return .startAttempt(stage, AttemptStart(hop: hop, startedAt: startedAt, deadline: deadline,
                                                     downloadResume: downloadResume, cacheCandidate: cacheCandidate))
        case let .failed(result) where hasRetriers:
            lastResult = result
            state = .awaitingRetryDecision(stage)
            return .askRetriers(stage, result.retryableError ?? .explicitlyCancelled)
        case let .failed(result), let .refused(result):
            lastResult = result
            return finishing(.lastOutcome)
        }
    }

    /// The engine reports the stage's attempt over (or the owner ended it without one: a refused
    /// check, a cache hit or a cache-only miss).
    ///
    /// - Parameter result: The attempt's outcome, the error the retriers would be asked about, and
    ///   where a retried download continues. When the machine takes the event, it completes the
    ///   outcome's metrics (the redirects before this hop, which libcurl does not see; every attempt's
    ///   metrics so far in `allMetrics`) and keeps it as ``lastResult``; a stale result is left as it is.
    mutating func attemptEnded(_ verdict: AttemptVerdict, result: inout StageResult, for stage: Stage) -> Action {
        switch state {
        case .running(stage, var chain):
            keep(&result, recordingIn: &chain)
            state = .running(stage, chain)
        case .cancelling(stage, let cause, var chain):
            keep(&result, recordingIn: &chain) // a cancelled hop's metrics still count the redirects before it
            state = .cancelling(stage, cause, chain)
        default:
            break
        }
        switch state {
        case let .running(current, chain) where current == stage:
            switch verdict {
            case .redirect:
                if stage.hop >= maximumRedirects {
                    return finishing(.tooManyRedirects)
                }
                state = .awaitingRedirectDecision(stage, chain)
                return .askRedirectHandler(stage, result.outcome)
            case .retryable where hasRetriers:
                state = .awaitingRetryDecision(stage)
                return .askRetriers(stage, result.retryableError ?? .explicitlyCancelled)
            case .retryable, .final:
                return finishing(.lastOutcome)
            }
        case let .cancelling(current, cause, _) where current == stage:
            return finishing(cause == .user ? .cancelled : .resourceTimedOut)
        default:
            return unexpected("attemptEnded", for: stage)
        }
    }

    /// The redirect handler answered for the stage.
    ///
    /// - Parameters:
    ///   - follow:     Whether to follow.
    ///   - keepsBody:  Whether the next hop may send the body (not after a 303, nor a POST's 301/302);
    ///                 once dropped, no later hop of the attempt sends it.
    ///   - leavesOrigin: Whether the next hop goes to another origin than the hop before: the
    ///                 credentials are dropped for the rest of the attempt.
    ///   - hop:        The next hop as it would go with nothing dropped (the request's own body and
    ///                 credentials); the machine drops what this or an earlier hop of the attempt
    ///                 dropped. `nil` when not following (following without one is impossible).
    mutating func redirectDecided(follow: Bool, keepsBody: Bool = true, leavesOrigin: Bool = false,
                                  hop: NextHop?, for stage: Stage) -> Action {
        guard case .awaitingRedirectDecision(stage, var chain) = state else {
            return unexpected("redirectDecided", for: stage)
        }
        guard follow, var hop else {
            if follow { reportImpossible("redirectDecided(follow: true) without a hop for \(stage)") }
            return finishing(.lastOutcome)
        }
        if !keepsBody { chain.bodyDropped = true }
        if leavesOrigin { chain.credentialDropped = true }
        if chain.bodyDropped { hop.body = .none }
        if chain.credentialDropped { hop.credential = nil }
        let next = nextStage(attempt: stage.attempt, hop: stage.hop + 1)
        state = .running(next, chain)
        // A redirect hop's Timeline starts when it is planned (`startedAt: nil`).
        return .startAttempt(next, AttemptStart(hop: hop, startedAt: nil, deadline: deadline,
                                                downloadResume: downloadResume, cacheCandidate: cacheCandidate))
    }

    /// The hops of the running attempt so far (`nil` outside ``State/running(_:_:)``,
    /// ``State/cancelling(_:_:_:)`` and ``State/awaitingRedirectDecision(_:_:)``).
    var hopChain: HopChain? {
        switch state {
        case let .running(_, chain), let .cancelling(_, _, chain), let .awaitingRedirectDecision(_, chain): return chain
        default: return nil
        }
    }

    /// Takes the result of the running (or cancelling) attempt's hop: the engine's metrics get the
    /// redirects followed before it and join ``metricsHistory``, the hop is counted in `chain`, a
    /// download's resume plan is updated, and the result becomes ``lastResult``.
    private mutating func keep(_ result: inout StageResult, recordingIn chain: inout HopChain) {
        if result.fromEngine {
            if var metrics = result.outcome.metrics {
                chain.record(&metrics)
                result.outcome.metrics = metrics
                metricsHistory.append(metrics)
            }
            result.outcome.allMetrics = metricsHistory
        }
        switch result.retryResume {
        case .keepsPrevious: break
        case .startsOver: downloadResume = nil
        case let .continues(plan): downloadResume = plan
        }
        lastResult = result
    }

    /// The retriers answered for the stage.
    mutating func retryDecided(_ decision: RetryDecision, for stage: Stage) -> Action {
        guard case .awaitingRetryDecision(stage) = state else { return unexpected("retryDecided", for: stage) }
        switch decision {
        case .doNotRetry:
            return finishing(.lastOutcome)
        case let .failWithRetryError(failure):
            return finishing(.retryFailed(failure))
        case let .retry(delay) where delay > 0:
            state = .delayingRetry(stage, timer: nil)
            return .scheduleRetry(after: delay, stage)
        case .retry:
            let next = nextStage(attempt: stage.attempt + 1, hop: 0)
            state = .adapting(next)
            return .adapt(next)
        }
    }

    /// The owner armed the timer of the stage's retry delay (after ``Action/scheduleRetry(after:_:)``;
    /// it may already have fired). The state keeps it, so that leaving the stage early cancels it.
    ///
    /// - Returns: ``Action/none`` when the machine keeps it; ``Action/cancelTimer(_:)`` when the stage
    ///   was left meanwhile (cancelled, timed out, or the timer fired). Arming a timer for the current
    ///   stage when it did not ask for one, or twice, is impossible: reported, then ``Action/none``.
    mutating func retryTimerArmed(_ timer: StageTimer, for stage: Stage) -> Action {
        if case .delayingRetry(stage, nil) = state {
            state = .delayingRetry(stage, timer: timer)
            return .none
        }
        if isImpossible(for: stage) { return unexpected("retryTimerArmed", for: stage) }
        return .cancelTimer(timer) // a stage the machine left: the timer is not kept
    }

    /// A stage is about to wait outside the engine (an adapter, the retriers, a redirect handler): the
    /// request's deadline needs a timer of its own there (the engine enforces it on running attempts).
    ///
    /// - Returns: ``Action/armDeadlineTimer(at:)`` the first time, when the request has a deadline and
    ///   is not over or being stopped; ``Action/none`` otherwise (no deadline, armed before, `cancelling`,
    ///   `finished`). Impossible while idle: no stage waits yet.
    mutating func deadlineTimerNeeded() -> Action {
        switch state {
        case .idle:
            reportImpossible("deadlineTimerNeeded in idle")
            return .none
        case .finished, .cancelling:
            return .none
        case .adapting, .running, .awaitingRedirectDecision, .awaitingRetryDecision, .delayingRetry:
            guard deadline > 0, case .unarmed = deadlineTimer else { return .none }
            deadlineTimer = .arming
            return .armDeadlineTimer(at: deadline)
        }
    }

    /// The owner armed the deadline timer the machine asked for (``Action/armDeadlineTimer(at:)``).
    ///
    /// - Returns: ``Action/none`` when the machine keeps it (its `finish` hands it back);
    ///   ``Action/cancelTimer(_:)`` when the request ended meanwhile. Reporting a timer the machine did
    ///   not ask for, or twice, is impossible: reported, then ``Action/none``.
    mutating func deadlineTimerArmed(_ timer: StageTimer) -> Action {
        guard case .arming = deadlineTimer else {
            reportImpossible("deadlineTimerArmed with the deadline timer \(deadlineTimer) in \(state)")
            return .none
        }
        guard !isFinished else { return .cancelTimer(timer) }
        deadlineTimer = .armed(timer)
        return .none
    }

    /// cache: hook 1 consulted the store for the stage's first hop and chose the stored entry the hop
    /// is conditional on, or may serve on an error (`nil`: none). Taken while the stage's attempt is
    /// running (or being stopped); it changes no state. A stage the machine left is stale: ignored.
    mutating func cacheConsulted(candidate: CachedEntry?, for stage: Stage) {
        switch state {
        case .running(stage, _), .cancelling(stage, _, _):
            cacheCandidate = candidate
        default:
            _ = unexpected("cacheConsulted", for: stage)
        }
    }

    /// The retry delay of the stage elapsed.
    mutating func delayElapsed(for stage: Stage) -> Action {
        guard case .delayingRetry(stage, _) = state else { return unexpected("delayElapsed", for: stage) }
        // The timer fired: dropping it (one-shot, nothing left to cancel) releases it.
        let next = nextStage(attempt: stage.attempt + 1, hop: 0)
        state = .adapting(next)
        return .adapt(next)
    }
}

// MARK: - Delivery

// The request's handlers and the outcome they get, as part of the machine (issue 24 point 1): no
// handler list, "attached", "draining" or "final outcome" flag lives beside it in `Transfer`.
extension RequestStateMachine {
    /// Whether a response handler was ever attached (or the outcome is out, which only a started
    /// request has).
    var hasHandlers: Bool {
        if case let .collecting(handlers) = delivery { return !handlers.isEmpty }
        return true
    }

    /// The outcome once it is published (the handlers are getting it, or all have it).
    var publishedOutcome: TransferOutcome? {
        switch delivery {
        case .collecting: return nil
        case let .draining(outcome, _), let .delivered(outcome): return outcome
        }
    }

    /// Whether the outcome is published: no progress closure or stream target is kept any more.
    var isDelivered: Bool {
        if case .collecting = delivery { return false }
        return true
    }

    /// A response handler was attached.
    ///
    /// - Returns: The outcome to drain now, when every earlier handler already had it (the owner then
    ///   calls ``nextHandler()`` until it returns `nil`); `nil` when the handler waits its turn.
    mutating func attachHandler(_ handler: Handler) -> TransferOutcome? {
        switch delivery {
        case var .collecting(handlers):
            delivery = .collecting(HandlerList()) // the list is then uniquely held: appended in place
            handlers.append(handler)
            delivery = .collecting(handlers)
            return nil
        case .draining(let outcome, var handlers):
            delivery = .delivered(outcome)
            handlers.append(handler)
            delivery = .draining(outcome, handlers)
            return nil
        case let .delivered(outcome):
            delivery = .draining(outcome, HandlerList(handler))
            return outcome
        }
    }

    /// The owner published the request's outcome (after the machine's ``Action/finish(_:outcome:cancelling:)``, once).
    ///
    /// - Returns: The outcome to drain now when handlers wait (the owner then calls ``nextHandler()``
    ///   until it returns `nil`); `nil` when none was attached. Published twice, or before the machine
    ///   finished, is impossible: reported, then ignored.
    mutating func outcomePublished(_ outcome: TransferOutcome) -> TransferOutcome? {
        guard isFinished, case let .collecting(handlers) = delivery else {
            reportImpossible("outcomePublished in \(state) with the outcome \(isDelivered ? "already published" : "unknown")")
            return nil
        }
        guard !handlers.isEmpty else {
            delivery = .delivered(outcome)
            return nil
        }
        delivery = .draining(outcome, handlers)
        return outcome
    }

    /// The drain loop takes the next handler to give the outcome to; `nil` ends the loop (the
    /// outcome is then delivered). Only the loop that ``attachHandler(_:)`` or
    /// ``outcomePublished(_:)`` started calls it: with no drain under way it is impossible.
    mutating func nextHandler() -> Handler? {
        guard case .draining = delivery else {
            reportImpossible("nextHandler with no drain under way")
            return nil
        }
        // Moved out and back (``takeDelivery()``): the outcome is not copied, twice per response.
        guard case .draining(let outcome, var handlers) = takeDelivery() else { return nil }
        guard let next = handlers.removeFirst() else {
            delivery = .delivered(outcome)
            return nil
        }
        delivery = .draining(outcome, handlers)
        return next
    }

    /// ``delivery`` moved out, an empty `.collecting` list in its place until the caller stores the
    /// next value: a payload bound from the result is moved, not copied (binding it from the stored
    /// property retained each of the outcome's references, and storing it back released them).
    private mutating func takeDelivery() -> Delivery {
        var taken = Delivery.collecting(HandlerList())
        swap(&taken, &delivery)
        return taken
    }
}
