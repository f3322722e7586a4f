import Foundation
import FoundationNetworking
import Synchronization

/// The network transfer shared by every copy of one request value.
///
/// It runs at most once (plus retries), starting on the first response handler, async serializer
/// or `resume()`. Handlers run once each, in the order they were attached, off the engine thread.
/// Everything that changes — the state machine and the fields beside it — is one ``Guarded`` value,
/// reached only through ``withLock(_:)``; nothing is called out while the lock is held
/// (`@unchecked Sendable`: `guarded` is private and read and written only under `lock`; the other
/// mutable state is the atomics `cancelFlag`, `releaseStartDisarmed`, `startEpoch` and `parked`).
final class Transfer: @unchecked Sendable {
    /// How a transfer builds what it sends and where it puts what it receives.
    struct Definition: Sendable {
        /// The request, or the error that prevented building it (reported when the transfer starts).
        var head: Result<LazyRequest, CurlfireError>
        /// ``head`` as Foundation's type (built on each read from a plain head).
        var urlRequest: Result<URLRequest, CurlfireError> {
            get { head.map(\.urlRequest) }
            set { head = newValue.map(LazyRequest.built) }
        }
        var body: UploadBody = .none
        /// The sink of each attempt; `nil` for memory (the attempt's own sink, kept with it in the engine's pool).
        var makeSink: (@Sendable () -> ResponseSink)? = nil
        var credential: (user: String, password: String)?
        var adapters: [any RequestAdapter] = []
        /// Asked in order after a failed attempt; the first that says "retry" wins.
        var retriers: [any RequestRetrier] = []
        var allowsBodyInGET = false
        /// Runs once, off the engine thread, after the last attempt and before any handler sees the
        /// outcome (a download moves its file to its destination here). `nil` for most requests.
        var outcomeHook: (@Sendable (TransferOutcome) -> TransferOutcome)?
        // lifecycle: redirect handling and the public request value given to retriers, redirect
        // handlers and event monitors (Transfer+Lifecycle.swift).
        /// The redirect handler in effect; `nil` or ``Redirector/follow`` lets libcurl follow.
        var redirectHandler: (any RedirectHandler)?
        /// Wraps a transfer as the request value of its kind (data, upload, stream, download).
        var makeRequestValue: @Sendable (RequestCore) -> any Request = { DataRequest(core: $0) }
        /// cache: the session's response cache, for data and upload requests only (Cache/Transfer+Cache.swift).
        var cache: RequestCacheSettings?
        /// parity: a download whose retry continues from the bytes an earlier attempt wrote
        /// (`Range` + `If-Range`, FileSink.retryResume(request:)) instead of starting from zero.
        var resumesDownloadOnRetry = false
        /// transport: the request's own deadline and connect timeout (Core/Request+TimeLimits.swift).
        var timeLimits = RequestTimeLimits()
        /// transport: the request's own bandwidth limits (Core/Request+RateLimits.swift).
        var rateLimits = RequestRateLimits()
    }

    struct ProgressHandler { // internal for Transfer+Progress.swift
        let queue: DispatchQueue
        let closure: @Sendable (Progress) -> Void
    }

    let session: SessionManager
    let definition: Definition

    /// Taken from ``LockPool/transfers`` and handed back by `deinit` (one allocation per request fewer).
    /// A `var` only so `deinit` can check it is unshared before the pool keeps it; never reassigned.
    /// Readable (LockPoolTests compare the locks of live transfers); what it guards is not.
    @exclusivity(unchecked) private(set) var lock = LockPool.transfers.take()
    /// `lock`'s mutex, which ``withLock(_:)`` takes: read through the `var`, the lock object was
    /// retained and released around every use, about a dozen reference-count writes per request
    /// (docs/Performance.md, "twenty-third session"). Valid while `lock` holds the object: for the
    /// transfer's whole life, since `lock` is never reassigned and is handed back only in `deinit`.
    private let mutex: MutexReference
    /// The machine and every other field that changes (Transfer+Guarded.swift): private, so the only
    /// way to it, from any file, is ``withLock(_:)``.
    @exclusivity(unchecked) private var guarded: Guarded
    /// Set when the running attempt must stop (cancel, resource deadline) — only by `perform`, carrying
    /// out the machine's `cancelAttempt` or `finish(.cancelled)` — readable without the lock from
    /// libcurl's write callback: one `curl_multi_perform` can deliver many buffers before
    /// the engine handles the cancel command, so the callback stops the transfer at the next chunk.
    private let cancelFlag = Atomic<Bool>(false)
    /// Whether the running attempt must stop; cheap enough for every body chunk.
    var isCancelFlagged: Bool { cancelFlag.load(ordering: .relaxed) }

    /// Runs `body` with the transfer's state under its lock: the one way to read or change the
    /// machine and the fields beside it. `body` must not call out (no handler, closure, monitor or
    /// engine call): it returns what to do, and the caller does it after the lock is released.
    func withLock<T>(_ body: (inout Guarded) -> T) -> T {
        mutex.withLock { body(&guarded) }
    }

    /// Whether the session's `startRequestsImmediately` was true when the request was created
    /// (Alamofire 4 reads it then): a request released with no handler is then sent.
    private let startsImmediately: Bool
    /// Set once a handler, `resume()`, `cancel()`, `suspend()` or a replacing modifier decided the
    /// request's fate: its last value going away then starts nothing. Atomic, not under `lock`:
    /// a value can be released while `lock` is held (a progress closure that captured its request).
    private let releaseStartDisarmed = Atomic<Bool>(false)
    /// The session's cancel epoch when the transfer started (``SessionManager/cancelEpoch``);
    /// `Int.max` until then, and for a flight's carrier, which never starts: what
    /// `cancelAllRequests()` compares (SessionManager+CancelAll.swift).
    let startEpoch = Atomic<Int>(.max)
    /// Whether the transfer joined the session's registry of transfers that wait outside the engine
    /// (``parkOutsideEngine()``): only such a transfer leaves it when it delivers its outcome.
    let parked = Atomic<Bool>(false)

    /// Whether the transfer started before the session's cancel epoch reached `epoch`: what a
    /// `cancelAllRequests()` call that raised it to `epoch` cancels (never a transfer not started).
    func startedBefore(_ epoch: Int) -> Bool {
        startEpoch.load(ordering: .relaxed) < epoch
    }

    /// The transfers of `attempts` that started before `epoch`, each once (an executor's answer to
    /// `cancelStarted`).
    static func startedBefore(_ epoch: Int, in attempts: some Sequence<CurlAttempt>) -> [Transfer] {
        var started: [Transfer] = []
        var seen: Set<ObjectIdentifier> = []
        for attempt in attempts where attempt.transfer.startedBefore(epoch) {
            if seen.insert(ObjectIdentifier(attempt.transfer)).inserted { started.append(attempt.transfer) }
        }
        return started
    }

    init(session: SessionManager, definition: consuming Definition) {
        // What the state needs is read first, so that storing the definition is its last use and
        // moves it (stored first and read after, the whole definition was copied).
        guarded = Guarded(machine: RequestStateMachine(hasRetriers: !definition.retriers.isEmpty,
                                                       maximumRedirects: session.configuration.maximumRedirects))
        if case let .success(request) = definition.head { guarded.currentRequest = request }
        self.session = session
        startsImmediately = session.startRequestsImmediately
        self.definition = definition
        mutex = lock.reference
    }

    // MARK: - State for request values

    /// The request as sent by the latest attempt (adapted), or as built before the transfer started.
    /// Built outside the lock, on each read, when the request is still in its plain form.
    var request: URLRequest? { withLock { $0.currentRequest }?.urlRequest }
    /// The latest response.
    var response: HTTPURLResponse? { withLock { $0.currentResponse }?.response }
    /// How many times the transfer was retried.
    var retryCount: Int { withLock { max(0, $0.machine.attemptsStarted - 1) } }
    /// Whether the transfer has started.
    var isStarted: Bool { withLock { $0.machine.isStarted } }
    /// Whether a response handler was attached or the transfer started: a modifier that changes
    /// what is sent can no longer apply to it (``CurlfireError/requestAlreadyStarted(modifier:)``).
    var isCommitted: Bool { withLock { $0.machine.hasHandlers || $0.machine.isStarted } }
    /// Whether `suspend()` is in effect (read by the engine when it adds the handle).
    var isSuspended: Bool { withLock { $0.machine.isSuspended } }
    /// Whether the transfer has finished (its outcome is published).
    var isFinished: Bool { withLock { $0.machine.isDelivered } }
    /// The outcome once the transfer has finished (a download's resume data after `cancel()`).
    var finishedOutcome: TransferOutcome? { withLock { $0.machine.publishedOutcome } }

    // MARK: - Parity additions (issue 14; read by Core, no effect on the lifecycle)
    /// parity: `Request.id`, the same for every copy of a request value and across retries. Made
    /// on first read: a UUID reads the system's random source (1.75 % of the CPU of a small request
    /// when made eagerly), and most requests are never asked for theirs.
    var id: UUID {
        withLock { state in
            if let identity = state.identity { return identity }
            let made = UUID()
            state.identity = made
            return made
        }
    }
    /// parity: `Request.state`, read from the state machine (whose `finished` state says whether
    /// `cancel()` ended the request).
    var publicState: RequestState {
        withLock { RequestState($0.machine.state, isSuspended: $0.machine.isSuspended) }
    }

    // MARK: - Handlers

    /// Adds a handler, run once with the outcome after the handlers attached before it.
    /// Starts the transfer when `start` is true.
    ///
    /// - Parameters:
    ///   - queue: Where `handler` runs — validation, serialization and the user's completion, all in
    ///     one hop from the engine. `nil` runs it inline wherever the outcome is published (possibly
    ///     the engine thread): only for internal handlers that merely hand the outcome over.
    func addHandler(start: Bool, queue: DispatchQueue?, _ handler: @escaping @Sendable (TransferOutcome) -> Void) {
        attach(RequestStateMachine.Handler(queue: queue, run: handler), start: start)
    }

    /// Adds a handler run on `queue` once the outcome is published, after the handlers attached
    /// before it; it reads the outcome itself (``publishedOutcome``), so its hand-off to `queue` makes
    /// no closure. Starts the transfer when `start` is true.
    func addQueuedHandler(start: Bool, queue: DispatchQueue, _ job: @escaping @Sendable () -> Void) {
        attach(RequestStateMachine.Handler(queue: queue, job: job), start: start)
    }

    private func attach(_ handler: RequestStateMachine.Handler, start: Bool) {
        releaseStartDisarmed.store(true, ordering: .relaxed)
        let drainNow = withLock { $0.machine.attachHandler(handler) }
        if let drainNow {
            runHandlers(drainNow)
        } else if start {
            self.start()
        }
    }

    /// The outcome handlers get, for a queued handler (``addQueuedHandler(start:queue:_:)``), which
    /// runs only after it was published. (Were it ever read before, the request would end as
    /// cancelled rather than leave its handler without a response.)
    var publishedOutcome: TransferOutcome {
        finishedOutcome ?? Self.failedOutcome(.explicitlyCancelled, request: request)
    }

    /// Sends the body of every later attempt to `closure` on `queue`, chunk by chunk, instead of
    /// keeping it (Alamofire 4's `DataRequest.stream(closure:)`); ignored once an attempt started.
    func setDataStream(queue: DispatchQueue, _ closure: @escaping @Sendable (Data) -> Void) {
        withLock { state in
            if state.machine.isDelivered { return }
            state.dataStream = StreamTarget(queue: queue, closure: closure)
        }
    }

    /// Adds a progress closure for the response body (dropped when the transfer has finished).
    func addDownloadProgress(queue: DispatchQueue, _ closure: @escaping @Sendable (Progress) -> Void) {
        withLock { state in
            if state.machine.isDelivered { return }
            state.downloadProgressHandlers.append(ProgressHandler(queue: queue, closure: closure))
        }
    }

    /// Adds a progress closure for the request body (dropped when the transfer has finished).
    func addUploadProgress(queue: DispatchQueue, _ closure: @escaping @Sendable (Progress) -> Void) {
        withLock { state in
            if state.machine.isDelivered { return }
            state.uploadProgressHandlers.append(ProgressHandler(queue: queue, closure: closure))
        }
    }

    /// Runs (or dispatches to its queue) each handler the machine hands out, in attach order, until it hands out
    /// none (one loop at a time: the machine's `attachHandler` or `outcomePublished` said to start it).
    private func runHandlers(_ outcome: TransferOutcome) {
        while let handler = withLock({ $0.machine.nextHandler() }) {
            switch handler.body {
            case let .inline(run): run(outcome)
            case let .dispatched(queue, run): hand(outcome, to: run, on: queue)
            case let .queued(queue, job): hand(job, on: queue)
            }
        }
    }

    /// Dispatches a handler to its queue; on the engine thread, handlers for a serial queue go out
    /// in one block per loop turn (Lifecycle/DeliveryBatch.swift). A function of its own: written inline
    /// in the drain loop, the call made the Swift 6.3.1 optimizer crash in release builds (a SIL
    /// verification failure in OwnershipModelEliminator on `drain`).
    @inline(never)
    private func hand(_ outcome: TransferOutcome, to run: @escaping @Sendable (TransferOutcome) -> Void,
                      on queue: DispatchQueue) {
        session.engine.deliver(outcome, to: run, on: queue, serial: session.isKnownSerial(queue))
    }

    /// Dispatches a prebuilt handler job to its queue, batched like the other form (same reason
    /// for being a function of its own).
    @inline(never)
    private func hand(_ job: @escaping @Sendable () -> Void, on queue: DispatchQueue) {
        session.engine.deliver(job: job, on: queue, serial: session.isKnownSerial(queue))
    }

    // MARK: - Requests without a handler (Alamofire 4's startRequestsImmediately)

    /// Stops the release of the last value from starting the transfer (a modifier replaced it, or
    /// the user steered it).
    func disarmReleaseStart() {
        releaseStartDisarmed.store(true, ordering: .relaxed)
    }

    /// The last copy of the user's request value is gone. A request nobody attached a handler to,
    /// resumed, suspended, cancelled or replaced is sent now when the session started requests
    /// immediately at its creation — fire-and-forget, as in Alamofire 4; otherwise it was never
    /// going to be sent and stays unsent (as an Alamofire 4 request never resumed).
    func lastValueReleased() {
        guard !releaseStartDisarmed.exchange(true, ordering: .relaxed), startsImmediately else { return }
        start()
    }

    // MARK: - Lifecycle (the state machine decides; these carry out its actions)

    /// Starts the transfer if it has not started (idempotent, any thread).
    func start() {
        releaseStartDisarmed.store(true, ordering: .relaxed)
        let deadline = resourceDeadline()
        let action = withLock { $0.machine.start(deadline: deadline) }
        if case .none = action { return }
        startEpoch.store(session.cancelEpoch.load(ordering: .acquiring), ordering: .relaxed) // parity: cancelAllRequests()
        emitStarted() // lifecycle: created + resumed events
        perform(action)
    }

    /// Cancels the transfer at any stage, at once; its handlers get ``CurlfireError/explicitlyCancelled``.
    /// A late answer from the abandoned stage (an adapter, a retrier, a redirect handler, a timer) is ignored.
    ///
    /// - Parameter discardingResumeData: parity: `DownloadRequest.cancel(createResumeData: false)` (the
    ///   event carries it to the machine, whose `finish` outcome says so).
    func cancel(discardingResumeData: Bool = false) {
        releaseStartDisarmed.store(true, ordering: .relaxed)
        let action = withLock { $0.machine.cancel(discardingResumeData: discardingResumeData) }
        if case .none = action { return }
        emit(posting: TaskNotificationNames.didCancel) { $0.requestDidCancel($1) } // lifecycle
        perform(action)
    }

    /// Pauses the transfer (libcurl stops reading and writing); `resume()` continues it.
    func suspend() {
        releaseStartDisarmed.store(true, ordering: .relaxed)
        let (changed, action) = withLock { state -> (Bool, RequestStateMachine.Action) in
            let before = state.machine.isSuspended
            let action = state.machine.suspend()
            return (state.machine.isSuspended && !before, action)
        }
        guard changed else { return } // already suspended, or over: no event
        perform(action)
        emit(posting: TaskNotificationNames.didSuspend) { $0.requestDidSuspend($1) } // lifecycle
    }

    /// Starts the transfer, or continues it after `suspend()`.
    func resume() {
        releaseStartDisarmed.store(true, ordering: .relaxed)
        let deadline = resourceDeadline()
        let (wasIdle, wasSuspended, action) = withLock { state in
            // Over or being cancelled: resume() changes nothing and posts nothing.
            state.machine.acceptsSuspension
                ? (!state.machine.isStarted, state.machine.isSuspended, state.machine.resume(deadline: deadline))
                : (false, false, .none)
        }
        if wasIdle {
            if case .none = action {} else {
                startEpoch.store(session.cancelEpoch.load(ordering: .acquiring), ordering: .relaxed) // parity: cancelAllRequests()
                emitStarted()
                perform(action)
            }
        } else if wasSuspended {
            perform(action)
            emit(posting: TaskNotificationNames.didResume) { $0.requestDidResume($1) } // lifecycle
        }
    }

    /// Carries out one action of the state machine (never under the lock). The action is consumed:
    /// its payload (an outcome, a plan's start) is moved into what carries it out, not copied.
    func perform(_ action: consuming RequestStateMachine.Action) {
        switch consume action {
        case .none:
            break
        case let .adapt(stage):
            adapt(stage)
        case let .startAttempt(stage, start):
            startAttempt(stage, start)
        case .cancelAttempt:
            // Set first, and only here: an attempt joining a flight meanwhile sees it and leaves
            // (RequestCoalescer.joinFlight); the engine and the write callback stop at it.
            cancelFlag.store(true, ordering: .relaxed)
            if session.configuration.coalescesIdenticalRequests, leaveFlight() { return } // resilience: others ride on
            session.engine.enqueue(.cancel(self))
        case .pauseAttempt:
            session.engine.enqueue(.pause(self))
        case .unpauseAttempt:
            session.engine.enqueue(.unpause(self))
        case let .askRedirectHandler(stage, outcome):
            askRedirectHandler(stage, about: outcome) // lifecycle
        case let .askRetriers(stage, error):
            askRetriers(stage, about: error) // lifecycle
        case let .scheduleRetry(delay, stage):
            scheduleRetry(after: delay, stage) // lifecycle
        case let .armDeadlineTimer(deadline):
            armDeadlineTimer(at: deadline) // lifecycle
        case let .cancelTimer(timer):
            timer.cancel()
        case let .finish(kind, outcome, timers):
            // A cancel that ends the request at once: an attempt made for it meanwhile never sends.
            if case .cancelled = kind { cancelFlag.store(true, ordering: .relaxed) }
            for timer in timers { timer.cancel() } // the deadline timer; a retry delay left early
            finish(kind, outcome: outcome) // lifecycle
        }
    }

    /// Feeds an event to the machine under the lock, then performs the action outside it.
    func send(_ event: (inout RequestStateMachine) -> RequestStateMachine.Action) {
        perform(withLock { event(&$0.machine) })
    }

    // MARK: - Attempts

    /// When `timeoutIntervalForResource` ends a request started now (monotonic; 0 for never):
    /// carried by the machine's `start` event.
    private func resourceDeadline() -> UInt64 {
        Self.deadline(after: definition.timeLimits.resourceTimeout(session: session.configuration.timeoutIntervalForResource))
    }

    /// Runs the adapters for a first attempt or a retry.
    private func adapt(_ stage: RequestStateMachine.Stage) {
        let initial: LazyRequest
        switch definition.head {
        case let .failure(error):
            let result = RequestStateMachine.StageResult(outcome: Self.failedOutcome(error, request: nil))
            return send { $0.adapted(.refused(result), for: stage) }
        case let .success(built):
            initial = built
        }
        let startedAt = Date.timeIntervalSinceReferenceDate // the attempt's Timeline starts with its adapters
        // No adapter: the hop at once, without the completion closure below (a context per request).
        guard !definition.adapters.isEmpty else {
            return adaptationEnded(.success(initial), initial: initial, startedAt: startedAt, stage: stage)
        }
        armResourceDeadline() // an adapter may wait
        // lifecycle: adapters may answer asynchronously (RequestAdapter.adapt(_:for:completion:)).
        runAdapters(initial.urlRequest) { result in
            self.adaptationEnded(result.map(LazyRequest.built), initial: initial, startedAt: startedAt, stage: stage)
        }
    }

    /// The adapters answered (or there were none): the stage's hop, or its failure.
    private func adaptationEnded(_ result: Result<LazyRequest, CurlfireError>, initial: LazyRequest,
                                 startedAt: TimeInterval, stage: RequestStateMachine.Stage) {
        switch result {
        case let .failure(error):
            let result = RequestStateMachine.StageResult(outcome: Self.failedOutcome(error, head: initial),
                                                         retryableError: error)
            send { $0.adapted(.failed(result), for: stage) }
        case let .success(request):
            let hop = NextHop(head: request, body: definition.body, credential: definition.credential)
            send { $0.adapted(.succeeded(hop, startedAt: startedAt), for: stage) }
        }
    }

    /// Plans the stage's hop for its own host and hands the attempt to the engine, as the machine's
    /// action says (the hop, its Timeline start, the deadline, a retried download's resume point).
    private func startAttempt(_ stage: RequestStateMachine.Stage, _ start: RequestStateMachine.AttemptStart) {
        var hop = start.hop
        if let store = session.configuration.hstsStore { upgradeForHSTS(&hop, store: store) } // security: RFC 6797
        // Read once: each read copies the existential, a retain and a release of the session's engine,
        // whose count every request's thread and the engine thread write.
        let engine = session.engine
        if engine.isCurrentThread, let url = hop.head.url,
           let scheme = url.lowercasedScheme, scheme == "https" || scheme == "https+unix",
           // transport: an https+unix hop is trusted as `localhost` (SessionManager.planOptions).
           !session.hasResolvedTrust(forHost: scheme == "https+unix" ? "localhost" : url.host ?? "") {
            // A redirect hop to a host whose trust is not resolved yet: the policy manager is open
            // code (it may block, or wait for a request of its own), so it is never asked on the
            // engine thread. Rare: once per host and session.
            var upgraded = start
            upgraded.hop = hop
            DispatchQueue.global().async { [upgraded] in self.startAttempt(stage, upgraded) }
            return
        }
        let startTime = start.startedAt ?? Date.timeIntervalSinceReferenceDate
        let deadline = start.deadline
        let (stream, reportsProgress) = withLock { state -> (StreamTarget?, Bool) in // one lock for both reads
            state.currentRequest = hop.head
            return (state.dataStream, state.reportsProgress)
        }
        var request = hop.head
        if let error = RequestChecks.validate(request, body: hop.body, allowsBodyInGET: definition.allowsBodyInGET,
                                              unsafeDefaultHeader: session.unsafeDefaultHeader)
            ?? definition.timeLimits.validationError
            ?? session.rateLimits(for: definition.rateLimits).validationError
            ?? session.resolveEntries.lazy.compactMap({ entry -> CurlfireError? in
                if case let .failure(error) = entry { return error } else { return nil } }).first
            ?? session.tlsSettingsError(for: request) {
            return refused(error, request: request, stage: stage)
        }
        if definition.cache != nil { // cache: hook 1, a hit ends the request without an attempt
            switch consultCache(request.urlRequest, stage: stage, startTime: startTime, candidate: start.cacheCandidate) {
            case .answered: return
            case let .send(sent): request = .built(sent)
            }
        }
        var sink: ResponseSink? = stream.map { ClosureSink(queue: $0.queue, closure: $0.closure) }
        if definition.resumesDownloadOnRetry, let resume = start.downloadResume, let ifRange = resume.validators.ifRange {
            // parity: a retried download continues from the bytes on disk.
            request.setValue("bytes=\(resume.resumeOffset)-", forHTTPHeaderField: "Range")
            request.setValue(ifRange, forHTTPHeaderField: "If-Range")
            sink = FileSink(plan: resume)
        }
        let options = session.planOptionsBox(for: request, credential: hop.credential, reportsProgress: reportsProgress,
                                             followsWithoutAsking: definition.redirectHandler.followsNatively,
                                             timeLimits: definition.timeLimits, rateLimits: definition.rateLimits)
        let plan = AttemptPlan(request: request, body: hop.body, optionsBox: options)
        // The plan is moved into the attempt (not copied); it is read there from now on.
        let attempt = engine.makeAttempt(transfer: self, plan: consume plan, body: hop.body,
                                                 sink: sink ?? definition.makeSink?(), startTime: startTime, stage: stage)
        attempt.deadline = deadline
        if mayCoalesce(request, body: hop.body, sink: attempt.sink, reportsProgress: attempt.options.reportsProgress),
           joinFlight(attempt, request: request.urlRequest, credential: hop.credential, plan: attempt.plan,
                      startTime: startTime, stage: stage) {
            return // resilience: identical requests share one transfer (Resilience/RequestCoalescer.swift)
        }
        if !engine.enqueue(.add(attempt)) {
            attemptDidFinish(attempt.finish(ending: .sessionDeinitialized))
        }
    }

    /// An attempt that never reached libcurl: a check refused its request.
    private func refused(_ error: CurlfireError, request: LazyRequest, stage: RequestStateMachine.Stage) {
        var result = RequestStateMachine.StageResult(outcome: Self.failedOutcome(error, head: request))
        send { $0.attemptEnded(.final, result: &result, for: stage) }
    }

    /// Called on the engine thread when an attempt is over.
    func attemptDidFinish(_ finished: consuming AttemptResult) {
        var result = consume finished
        if let store = session.configuration.hstsStore { learnHSTS(from: result, store: store) } // security: RFC 6797
        if session.configuration.coalescesIdenticalRequests, landFlight(result) { return } // resilience: a shared transfer
        // Taken out of the result and moved on, so the outcome holds the spare's box alone and fills it in place.
        let spare = result.spareOutcome.take()
        var outcome = Self.outcome(of: result, in: consume spare)
        outcome.uploadedBodyBytes = result.uploadedBodyBytes
        outcome.receivedBodyBytes = result.receivedBodyBytes
        let verdict: RequestStateMachine.AttemptVerdict
        if case .resourceTimeout = result.ending { verdict = .final } else { verdict = self.verdict(for: outcome) }
        let retryableError = Self.retryableError(outcome)
        // Consumed: the machine completes the outcome's metrics, in place while the result holds it alone.
        var ended = RequestStateMachine.StageResult(outcome: consume outcome, retryableError: retryableError,
                                                    fromEngine: true)
        let action: RequestStateMachine.Action = withLock { state in
            guard state.machine.stage == result.stage else { return .none } // a stale attempt (its file is not kept)
            if definition.resumesDownloadOnRetry, let sink = result.sink as? FileSink { // parity
                ended.retryResume = sink.retryResume(request: result.request)
            }
            if let response = result.lazyResponse { state.currentResponse = response }
            // The machine adds the redirects before this hop to its metrics, and every attempt's metrics.
            return state.machine.attemptEnded(verdict, result: &ended, for: result.stage)
        }
        emitAttemptFinished(result, metrics: ended.outcome.metrics) // lifecycle: with the hops before it counted
        reportAttempt(result) // resilience: budgets and breakers count outcomes (Resilience/AttemptObserver.swift)
        perform(action)
    }

    /// The outcome an ended attempt makes, in the spare the attempt's caller allocated when there is
    /// one (ResultSpares.swift; held alone, so each field is written into its box).
    private static func outcome(of result: AttemptResult, in spare: consuming TransferOutcome?) -> TransferOutcome {
        let data = result.body ?? (result.sink as? MemorySink)?.data
        let timeline = Timeline(requestStartTime: result.startTime, initialResponseTime: result.initialResponseTime,
                                requestCompletedTime: result.completedTime,
                                serializationCompletedTime: result.completedTime)
        var outcome = spare.take() ?? TransferOutcome.spare()
        outcome.head = result.head
        outcome.lazyResponse = result.lazyResponse
        outcome.data = data
        outcome.error = result.error
        outcome.timeline = timeline
        outcome.metrics = result.metrics
        outcome.sink = result.sink
        return outcome
    }

    /// What the lifecycle does with an ended attempt: follow a redirect, ask the retriers, or deliver.
    private func verdict(for outcome: TransferOutcome) -> RequestStateMachine.AttemptVerdict {
        if outcome.error == nil, session.configuration.followsRedirects,
           let status = outcome.lazyResponse?.statusCode, RedirectRules.redirectCodes.contains(status) {
            return .redirect // whether it has a usable Location is checked when the hop is planned
        }
        if case .explicitlyCancelled? = outcome.error { return .final }
        return Self.retryableError(outcome) == nil ? .final : .retryable
    }

    /// The error a retrier is asked about: a transport failure, or a status code of 400 or more.
    static func retryableError(_ outcome: TransferOutcome) -> CurlfireError? {
        switch outcome.error {
        case .explicitlyCancelled?, .sessionDeinitialized?: return nil
        case let error?: return error
        case nil:
            guard let status = outcome.lazyResponse?.statusCode, status >= 400 else { return nil }
            return .responseValidationFailed(reason: .unacceptableStatusCode(code: status))
        }
    }

    /// The monotonic time (`IdleClock.now()`) `seconds` from now; 0 (none) for a non-positive or
    /// unrepresentable interval.
    static func deadline(after seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite, seconds > 0, seconds < 1e9 else { return 0 }
        return IdleClock.now() + UInt64(seconds * 1e9)
    }

    /// An outcome that carries only an error (nothing was received).
    static func failedOutcome(_ error: CurlfireError, request: URLRequest?) -> TransferOutcome {
        failedOutcome(error, head: request.map(LazyRequest.built))
    }

    /// An outcome that carries only an error, for a request that may still be in its plain form.
    static func failedOutcome(_ error: CurlfireError, head: LazyRequest?) -> TransferOutcome {
        let now = Date.timeIntervalSinceReferenceDate
        return TransferOutcome(
            head: head, lazyResponse: nil, data: nil, error: error,
            timeline: Timeline(requestStartTime: now, initialResponseTime: now, requestCompletedTime: now,
                               serializationCompletedTime: now),
            metrics: nil, allMetrics: [], sink: nil)
    }

    deinit {
        removeTemporaryBody()
        LockPool.transfers.recycle(&lock)
    }

    /// Removes the body file the transfer owns (an encoded multipart form), once.
    private func removeTemporaryBody() {
        if case let .file(url, true) = definition.body { try? FileManager.default.removeItem(at: url) }
    }

    /// The end, step 2 of 4 (after ``finish(_:outcome:)`` made the final outcome): what the request's
    /// definition does with its outcome — the body file it owns is removed, the cache stores or merges
    /// the response (``runCacheHook(_:_:)``), a download moves its file (`outcomeHook`) — then
    /// ``announce(_:)``. `outcome` already says whether a `cancel(createResumeData: false)` dropped
    /// the resume data (the machine's `finish` action set it).
    func runOutcomeHooks(_ outcome: TransferOutcome) { // lifecycle: internal for Transfer+Lifecycle.swift
        removeTemporaryBody()
        if let cache = definition.cache, outcome.cacheStatus == .network {
            // cache: hook 2, store / merge a 304 / stale-if-error, off the engine thread. A hit has
            // nothing to store: it is published where it was served (one thread hop fewer).
            return DispatchQueue.global().async { self.runCacheHook(outcome, cache) }
        }
        if let outcomeHook = definition.outcomeHook {
            // Called on the engine thread (or the caller's): file work such as a download's move
            // runs on a global queue; until it is done the transfer still counts as running.
            DispatchQueue.global().async { self.announce(outcomeHook(outcome)) }
        } else {
            announce(outcome)
        }
    }

    /// The end, step 3 of 4: monitors and observers are told (`DidComplete`,
    /// ``EventMonitor/requestDidFinish(_:)``, waiting for those that finish before delivery), then
    /// ``releaseHandlers(_:)``.
    func announce(_ outcome: TransferOutcome) { // cache: internal for Transfer+Cache.swift
        if !session.eventMonitor.finishers.isEmpty { // observability: handlers wait for those monitors
            return announceAwaitingMonitors { self.releaseHandlers(outcome) }
        }
        emit(posting: TaskNotificationNames.didComplete) { $0.requestDidFinish($1) } // lifecycle: before any handler's didParseResponse
        releaseHandlers(outcome)
    }

    /// The end, step 4 of 4: the machine takes the outcome and lets its handlers go
    /// (``runHandlers(_:)``); progress closures are dropped.
    private func releaseHandlers(_ outcome: TransferOutcome) {
        if parked.exchange(false, ordering: .relaxed) { session.liveTransfers.remove(self) } // parity: cancelAllRequests()
        // No report follows; a closure that captures its own request (`request.downloadProgress {
        // … request.cancel() }`) would otherwise keep this transfer, and so the session, alive.
        // Released after the lock: the closure may hold the last copy of a request value.
        let (drainNow, droppedProgress) = withLock { state in
            let drainNow = state.machine.outcomePublished(outcome)
            let dropped = (state.downloadProgressHandlers, state.uploadProgressHandlers)
            state.downloadProgressHandlers.removeAll()
            state.uploadProgressHandlers.removeAll()
            return (drainNow, dropped)
        }
        withExtendedLifetime(droppedProgress) {}
        if let drainNow {
            // Only dispatches (or hands over to an inline waiter): cheap enough for the engine thread.
            runHandlers(drainNow)
        }
    }
}
