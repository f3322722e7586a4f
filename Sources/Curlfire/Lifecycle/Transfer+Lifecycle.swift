import Foundation
import FoundationNetworking

/// The request of the next hop: adapted (a first attempt or a retry) or a redirect target.
///
/// `@unchecked Sendable`: `URLRequest` and the body's input stream are not `Sendable`. A hop is made by
/// the thread that answers a stage, passes through its transfer's state machine under the transfer's
/// lock (the event that makes it, then the `startAttempt` action), and is handed to the one attempt it
/// starts, which alone reads its body.
struct NextHop: @unchecked Sendable {
    /// The hop's request, in its plain form until something needs a `URLRequest`.
    var head: LazyRequest
    var body: UploadBody
    var credential: (user: String, password: String)?
    /// ``head`` as Foundation's type (built on each read from a plain head).
    var request: URLRequest {
        get { head.urlRequest }
        set { head = .built(newValue) }
    }
}

extension NextHop {
    /// A hop that sends a built request.
    init(request: URLRequest, body: UploadBody, credential: (user: String, password: String)?) {
        self.init(head: .built(request), body: body, credential: credential)
    }
}

// The request lifecycle around the engine: event monitors, adapters that answer asynchronously,
// redirects followed by hand. Kept apart from Transfer.swift; runs off the engine thread except
// `emitAttemptFinished` and following a redirect without a handler, which only dispatch.
extension Transfer {
    /// The public request value for this transfer (a `DataRequest`, `UploadRequest`, `StreamRequest`, …).
    /// A value made here has no ``RequestValueBox`` (it starts nothing on release, and reads the definition
    /// from the transfer): a request's events, notifications and retrier calls allocate nothing for it.
    var requestValue: any Request {
        definition.makeRequestValue(RequestCore(transfer: self))
    }

    // MARK: - Events

    /// Sends an event to the session's monitors (each on its own queue), and posts `posting`
    /// when the event has a notification and the session posts them
    /// (``SessionConfiguration/postsTaskNotifications``).
    func emit(posting: Notification.Name? = nil, _ event: @escaping @Sendable (any EventMonitor, any Request) -> Void) {
        let monitors = session.eventMonitor
        let posting = postsTaskNotifications ? posting : nil
        guard !monitors.isEmpty || posting != nil else { return }
        let request = requestValue
        if let posting { monitors.post(posting, request: request) }
        if !monitors.isEmpty { monitors.send { event($0, request) } }
    }

    /// Whether the session posts the `Notification.Name.Task` notifications
    /// (``SessionConfiguration/postsTaskNotifications``) and some code has read one of those names,
    /// so that a post can have an observer (`TaskNotificationNames`).
    private var postsTaskNotifications: Bool {
        session.configuration.postsTaskNotifications && TaskNotificationNames.mayBeObserved
    }

    /// observability: posts `DidComplete` and sends ``EventMonitor/requestDidFinish(_:)``, then runs
    /// `delivery` once every monitor that ``EventMonitor/finishesBeforeDelivery`` is done with it.
    func announceAwaitingMonitors(then delivery: @escaping @Sendable () -> Void) {
        let request = requestValue
        if postsTaskNotifications { session.eventMonitor.post(TaskNotificationNames.didComplete, request: request) }
        session.eventMonitor.finish(request, then: delivery)
    }

    /// The transfer started: the request was built (or not), and it is running.
    func emitStarted() {
        // Only with monitors: each event closure captures a value, a context made even when `emit` drops it.
        if !session.eventMonitor.isEmpty {
            switch definition.urlRequest {
            case let .success(request): emit { $0.request($1, didCreateInitialURLRequest: request) }
            case let .failure(error): emit { $0.request($1, didFailToCreateURLRequestWithError: error) }
            }
        }
        emit(posting: TaskNotificationNames.didResume) { $0.requestDidResume($1) }
    }

    /// An attempt is over (engine thread: only dispatches).
    func emitAttemptFinished(_ result: AttemptResult, metrics: TransferMetrics?) {
        guard !session.eventMonitor.isEmpty else { return } // monitor events only: no closure contexts for nobody
        if let metrics { emit { $0.request($1, didGatherMetrics: metrics) } }
        let error = result.error
        emit { $0.request($1, didCompleteAttemptWith: error) }
    }

    // MARK: - Adapters

    /// Runs the adapters in order, each through its completion form, then calls `done` once.
    func runAdapters(_ initial: URLRequest, done: @escaping @Sendable (Result<URLRequest, CurlfireError>) -> Void) {
        let adapters = definition.adapters
        guard !adapters.isEmpty else { return done(.success(initial)) }
        let session = session
        @Sendable func step(_ index: Int, _ request: URLRequest) {
            guard index < adapters.count else {
                emit { $0.request($1, didAdaptInitialRequest: initial, to: request) }
                return done(.success(request))
            }
            let once = OnceFlag()
            adapters[index].adapt(request, for: session) { result in
                guard once.claim() else { return }
                switch result {
                case let .success(adapted): step(index + 1, adapted)
                case let .failure(error):
                    let failure = (error as? CurlfireError) ?? .requestAdaptationFailed(error: error)
                    self.emit { $0.request($1, didFailToAdaptURLRequest: initial, withError: failure) }
                    done(.failure(failure))
                }
            }
        }
        step(0, initial)
    }

    // MARK: - Redirects (Curlfire follows every hop itself, so each is planned for its own host)

    /// Asks the redirect handler about the stage's 3xx — at once, without a thread hop, when none
    /// is set or it is ``Redirector/follow``; otherwise on a global queue.
    func askRedirectHandler(_ stage: RequestStateMachine.Stage, about outcome: TransferOutcome) {
        guard let response = outcome.response, let sent = outcome.request,
              let proposal = RedirectRules.redirect(from: sent, response: response)
        else { return send { $0.redirectDecided(follow: false, hop: nil, for: stage) } } // no usable Location: deliver the 3xx
        let handler = definition.redirectHandler
        guard let handler, !definition.redirectHandler.followsNatively else {
            return follow(proposal.request, from: sent, keepsBody: proposal.keepsBody, response: response, stage: stage)
        }
        armResourceDeadline() // a handler may take its time
        let request = requestValue
        DispatchQueue.global().async {
            let once = OnceFlag()
            handler.request(request, willBeRedirectedTo: proposal.request, for: response) { next in
                guard once.claim() else { return }
                guard let next else { return self.send { $0.redirectDecided(follow: false, hop: nil, for: stage) } }
                self.follow(RedirectRules.stripForwardedCredentials(next, original: sent), from: sent,
                            keepsBody: proposal.keepsBody, response: response, stage: stage)
            }
        }
    }

    /// Follows a redirect: the next hop gets the body and credentials the rules allow (the machine's
    /// `HopChain` remembers what an earlier hop of the attempt dropped).
    private func follow(_ next: URLRequest, from sent: URLRequest, keepsBody: Bool, response: HTTPURLResponse,
                        stage: RequestStateMachine.Stage) {
        let leavesOrigin = !RedirectRules.sameOrigin(sent.url, next.url)
        let hop = NextHop(request: next, body: definition.body, credential: definition.credential) // the machine drops what it must
        let action: RequestStateMachine.Action = withLock {
            $0.machine.redirectDecided(follow: true, keepsBody: keepsBody, leavesOrigin: leavesOrigin, hop: hop, for: stage)
        }
        if case .none = action { return }
        emit { $0.request($1, willRedirectTo: next, for: response) }
        perform(action)
    }

    // MARK: - Retries

    /// Asks the retriers in order, off the engine thread; the first that retries (or fails) wins.
    func askRetriers(_ stage: RequestStateMachine.Stage, about error: CurlfireError) {
        armResourceDeadline() // a retrier may take its time
        DispatchQueue.global().async { self.consultRetriers(self.definition.retriers[...], error: error, stage: stage) }
    }

    private func consultRetriers(_ retriers: ArraySlice<any RequestRetrier>, error: CurlfireError,
                                 stage: RequestStateMachine.Stage) {
        guard let retrier = retriers.first else { return send { $0.retryDecided(.doNotRetry, for: stage) } }
        // Every answer of an abandoned stage (cancelled, timed out) is ignored by the machine.
        guard withLock({ $0.machine.stage == stage }) else { return }
        let once = OnceFlag()
        // lifecycle: the RetryResult form (its default bridges to the Alamofire 4 `should`).
        retrier.retry(requestValue, for: session, dueTo: error) { result in
            guard once.claim() else { return }
            if let retryError = result.error {
                let failure = RequestStateMachine.RetryFailure(retryError: retryError, originalError: error)
                return self.send { $0.retryDecided(.failWithRetryError(failure), for: stage) }
            }
            guard result.retryRequired else {
                return self.consultRetriers(retriers.dropFirst(), error: error, stage: stage)
            }
            if self.definition.body.stream?.isStarted == true {
                // A streamed body was (partly) read: a retry would send nothing or a part. Refused,
                // typed: requestRetryFailed(retryError: bodyStreamFailed(.notReplayable), originalError:).
                let failure = RequestStateMachine.RetryFailure(
                    retryError: CurlfireError.bodyStreamFailed(reason: .notReplayable), originalError: error)
                return self.send { $0.retryDecided(.failWithRetryError(failure), for: stage) }
            }
            let action = self.withLock { $0.machine.retryDecided(.retry(after: result.delay ?? 0), for: stage) }
            if case .none = action { return }
            self.emit { $0.requestIsRetrying($1) } // lifecycle
            let delay = result.delay ?? 0
            self.emit { $0.request($1, willRetryAfter: delay) } // resilience: the delay waited
            if case .adapt = action {
                DispatchQueue.global().async { self.perform(action) } // never inside the retrier's call
            } else {
                self.perform(action)
            }
        }
    }

    /// Waits out a retry delay on a timer that the machine's `delayingRetry` state holds, so that
    /// leaving the stage early (`cancel()`, the deadline) cancels it.
    func scheduleRetry(after delay: TimeInterval, _ stage: RequestStateMachine.Stage) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + delay)
        timer.setEventHandler { [weak self] in self?.send { $0.delayElapsed(for: stage) } }
        timer.resume()
        let box = CancellableDispatchTimer(timer)
        let held = RequestStateMachine.StageTimer(cancel: { box.cancel() })
        // The machine keeps it, or says to cancel it (the stage was left meanwhile, or it already fired).
        send { $0.retryTimerArmed(held, for: stage) }
    }

    /// The request's deadline for the stages outside the engine (adapters, retriers, delays, redirect
    /// handlers that wait); the engine enforces it on running attempts. The machine asks for the timer
    /// once (``RequestStateMachine/Action/armDeadlineTimer(at:)``), holds it, and hands it back in its
    /// `finish` action.
    func armResourceDeadline() {
        parkOutsideEngine()
        send { $0.deadlineTimerNeeded() }
    }

    /// Joins the session's registry of transfers that wait outside the engine (for an adapter, a
    /// retrier, a delay, a redirect handler or a flight of identical requests), which
    /// `cancelAllRequests()` reaches directly; the engine reaches those it runs. Joined once, left
    /// when the outcome is delivered. A `cancelAllRequests()` that swept the registry before this
    /// transfer joined it is seen here, in its epoch (SessionManager+CancelAll.swift).
    func parkOutsideEngine() {
        guard !parked.exchange(true, ordering: .relaxed) else { return }
        session.liveTransfers.insert(self)
        if startedBefore(session.cancelEpoch.load(ordering: .acquiring)) {
            DispatchQueue.global().async { self.cancel() } // never inside the caller's stage
        }
    }

    /// Arms the deadline timer the machine asked for, for `deadline` (monotonic nanoseconds).
    func armDeadlineTimer(at deadline: UInt64) {
        let now = IdleClock.now()
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .nanoseconds(Int(min(deadline > now ? deadline - now : 0, UInt64(Int.max)))))
        timer.setEventHandler { [weak self] in self?.send { $0.resourceDeadlineElapsed() } }
        timer.resume()
        let box = CancellableDispatchTimer(timer)
        let held = RequestStateMachine.StageTimer(cancel: { box.cancel() })
        // The machine keeps it, or says to cancel it (the request ended meanwhile).
        send { $0.deadlineTimerArmed(held) }
    }

    // MARK: - Finishing

    /// The end, step 1 of 4, as the machine decided (its timers were cancelled by `perform`): makes
    /// the final outcome from the one the `finish` action carries (the last stage's, with a
    /// download's resume plan; `nil` when no stage ended), as `kind` says, then ``runOutcomeHooks(_:)``.
    func finish(_ kind: RequestStateMachine.Finish, outcome last: TransferOutcome?) {
        var outcome = last ?? Self.failedOutcome(.explicitlyCancelled, request: request)
        switch kind {
        case .lastOutcome:
            if outcome.error == nil { reportFinalProgress(outcome) }
        case .cancelled:
            outcome.error = .explicitlyCancelled
        case .resourceTimedOut:
            outcome.error = AttemptEnding.resourceTimeoutError(
                seconds: definition.timeLimits.resourceTimeout(session: session.configuration.timeoutIntervalForResource))
        case .tooManyRedirects:
            let maximum = session.configuration.maximumRedirects
            outcome.error = .sessionTaskFailed(code: .tooManyRedirects, message: "Maximum (\(maximum)) redirects followed")
        case let .retryFailed(failure):
            outcome.error = .requestRetryFailed(retryError: failure.retryError, originalError: failure.originalError)
        }
        runOutcomeHooks(outcome)
    }
}

/// A dispatch timer that only cancels, for a `@Sendable` closure (`@unchecked Sendable`: nothing guards it,
/// because `DispatchSourceTimer` — not marked `Sendable` — is only ever cancelled through the box, and
/// libdispatch makes `cancel()` safe from any thread).
private final class CancellableDispatchTimer: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(_ timer: DispatchSourceTimer) {
        self.timer = timer
    }

    func cancel() {
        timer.cancel()
    }
}

extension Transfer {
    /// A response handler produced its unserialized response.
    func emitParsed(_ response: DefaultDataResponse) {
        emit { $0.request($1, didParseResponse: response) }
    }

    /// A response handler produced its serialized response (handed to monitors, never shared).
    func emitParsed<Value>(_ response: DataResponse<Value>) {
        let monitors = session.eventMonitor
        guard !monitors.isEmpty else { return }
        let request = requestValue
        monitors.send(response) { monitor, response in monitor.request(request, didParseResponse: response) }
    }
}

extension Transfer {
    /// A stream's consumers caught up: continue receiving, unless the user suspended the request.
    func unpauseForStreamConsumers() {
        guard !isSuspended, !isFinished else { return }
        session.engine.enqueue(.unpause(self))
    }
}

extension Transfer {
    /// A streamed request body has bytes (or its end) after the read callback found none: ask the
    /// engine to continue the attempt (called on the producer's thread; `curl_easy_pause` belongs
    /// to the engine thread).
    func continueStreamedBody() {
        guard !isFinished else { return }
        session.engine.enqueue(.continueBody(self))
    }
}
