import Foundation
import FoundationNetworking
import Synchronization

/// What a finished transfer hands to each response handler.
struct TransferOutcome: @unchecked Sendable {
    var request: URLRequest?
    /// The response head, made into an `HTTPURLResponse` when first read (never on the engine thread).
    var lazyResponse: LazyResponse?
    var response: HTTPURLResponse? { lazyResponse?.response }
    var data: Data?
    var error: CurlfireError?
    var timeline: Timeline
    var metrics: TransferMetrics?
    /// Metrics of every attempt, oldest first (more than one after retries).
    var allMetrics: [TransferMetrics]
    /// The sink of the last attempt (a download's file sink carries its file and resume data).
    var sink: ResponseSink?
    /// A download's files and resume data, set by its `Spec.finishOutcome`; `nil` for other requests.
    var download: DownloadFiles? = nil
}

/// The network transfer shared by every copy of one request value.
///
/// It runs at most once (plus retries), starting on the first response handler, async serializer
/// or `resume()`. Handlers run once each, in the order they were attached, off the engine thread.
/// State is guarded by `lock`; nothing is called out while the lock is held.
final class Transfer: @unchecked Sendable {
    /// How a transfer builds what it sends and where it puts what it receives.
    struct Spec: Sendable {
        /// The request, or the error that prevented building it (reported when the transfer starts).
        var urlRequest: Result<URLRequest, CurlfireError>
        var body: UploadBody = .none
        var makeSink: @Sendable () -> ResponseSink = { MemorySink() }
        var credential: (user: String, password: String)?
        var adapters: [any RequestAdapter] = []
        /// Asked in order after a failed attempt; the first that says "retry" wins.
        var retriers: [any RequestRetrier] = []
        var allowsBodyInGET = false
        /// Runs once, off the engine thread, after the last attempt and before any handler sees the
        /// outcome (a download moves its file to its destination here). `nil` for most requests.
        var finishOutcome: (@Sendable (TransferOutcome) -> TransferOutcome)?
        // lifecycle: redirect handling and the public request value given to retriers, redirect
        // handlers and event monitors (Transfer+Lifecycle.swift).
        /// The redirect handler in effect; `nil` or ``Redirector/follow`` lets libcurl follow.
        var redirectHandler: (any RedirectHandler)?
        /// Wraps a transfer as the request value of its kind (data, upload, stream, download).
        var makeRequestValue: @Sendable (RequestCore) -> any Request = { DataRequest(core: $0) }
    }

    private enum Phase {
        case idle
        case preparing
        case running
        case finished(TransferOutcome)
    }

    private struct ProgressHandler {
        let queue: DispatchQueue
        let closure: @Sendable (Progress) -> Void
    }

    let session: SessionManager
    let spec: Spec

    let lock = NSLock() // lifecycle: internal for Transfer+Lifecycle.swift
    private var phase: Phase = .idle
    private var suspended = false
    var cancelRequested = false // lifecycle: internal for Transfer+Lifecycle.swift
    /// `cancelRequested`, readable without the lock from libcurl's write callback: one
    /// `curl_multi_perform` can deliver many buffers before the engine handles the cancel command,
    /// so the callback stops the transfer at the next chunk instead.
    private let cancelFlag = Atomic<Bool>(false)
    /// Whether `cancel()` was called; cheap enough for every body chunk.
    var isCancelFlagged: Bool { cancelFlag.load(ordering: .relaxed) }
    /// A response handler and where it runs: on `queue`, or — for internal handlers that only hand
    /// the outcome over (an async waiter, a stream consumer) — inline where the outcome is published.
    private struct Handler {
        let queue: DispatchQueue?
        let run: @Sendable (TransferOutcome) -> Void
    }

    private var handlers: [Handler] = []
    private var draining = false
    private var downloadProgressHandlers: [ProgressHandler] = []
    private var uploadProgressHandlers: [ProgressHandler] = []
    private var currentRequest: URLRequest?
    private var currentResponse: LazyResponse?
    private var attempts = 0
    private var metricsHistory: [TransferMetrics] = []
    /// lifecycle: redirects followed by hand in the current attempt (reset on each retry).
    var redirectHop = RedirectHop()

    init(session: SessionManager, spec: Spec) {
        self.session = session
        self.spec = spec
        if case let .success(request) = spec.urlRequest { currentRequest = request }
    }

    // MARK: - State for request values

    /// The request as sent by the latest attempt (adapted), or as built before the transfer started.
    var request: URLRequest? { lock.withLock { currentRequest } }
    /// The latest response.
    var response: HTTPURLResponse? { lock.withLock { currentResponse }?.response }
    /// How many times the transfer was retried.
    var retryCount: Int { lock.withLock { max(0, attempts - 1) } }
    /// Whether the transfer has started.
    var isStarted: Bool { lock.withLock { if case .idle = phase { return false } else { return true } } }
    /// Whether `suspend()` is in effect (read by the engine when it adds the handle).
    var isSuspended: Bool { lock.withLock { suspended } }
    /// Whether the transfer has finished.
    var isFinished: Bool { lock.withLock { if case .finished = phase { return true } else { return false } } }
    /// The outcome once the transfer has finished (a download's resume data after `cancel()`).
    var finishedOutcome: TransferOutcome? {
        lock.withLock { if case let .finished(outcome) = phase { return outcome } else { return nil } }
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
        lock.lock()
        handlers.append(Handler(queue: queue, run: handler))
        let drainNow: TransferOutcome?
        if case let .finished(outcome) = phase, !draining {
            draining = true
            drainNow = outcome
        } else {
            drainNow = nil
        }
        lock.unlock()
        if let drainNow {
            drain(drainNow)
        } else if start {
            self.start()
        }
    }

    /// Adds a progress closure for the response body (dropped when the transfer has finished).
    func addDownloadProgress(queue: DispatchQueue, _ closure: @escaping @Sendable (Progress) -> Void) {
        lock.withLock {
            if case .finished = phase { return }
            downloadProgressHandlers.append(ProgressHandler(queue: queue, closure: closure))
        }
    }

    /// Adds a progress closure for the request body (dropped when the transfer has finished).
    func addUploadProgress(queue: DispatchQueue, _ closure: @escaping @Sendable (Progress) -> Void) {
        lock.withLock {
            if case .finished = phase { return }
            uploadProgressHandlers.append(ProgressHandler(queue: queue, closure: closure))
        }
    }

    private func drain(_ outcome: TransferOutcome) {
        while true {
            lock.lock()
            if handlers.isEmpty {
                draining = false
                lock.unlock()
                return
            }
            let handler = handlers.removeFirst()
            lock.unlock()
            if let queue = handler.queue {
                queue.async { handler.run(outcome) }
            } else {
                handler.run(outcome)
            }
        }
    }

    // MARK: - Lifecycle

    /// Starts the transfer if it has not started (idempotent, any thread).
    func start() {
        lock.lock()
        guard case .idle = phase else {
            lock.unlock()
            return
        }
        phase = .preparing
        let cancelled = cancelRequested
        lock.unlock()
        if cancelled {
            finish(error: .explicitlyCancelled, request: spec.urlRequest.value)
            return
        }
        emitStarted() // lifecycle: created + resumed events
        beginAttempt()
    }

    /// Cancels the transfer at any point; its handlers get ``CurlfireError/explicitlyCancelled``.
    func cancel() {
        lock.lock()
        if cancelRequested {
            lock.unlock()
            return
        }
        cancelRequested = true
        cancelFlag.store(true, ordering: .relaxed)
        let current = phase
        lock.unlock()
        emit(posting: Notification.Name.Task.DidCancel) { $0.requestDidCancel($1) } // lifecycle
        switch current {
        case .idle:
            // Not started: finish now so handlers attached later see the cancellation.
            lock.lock()
            let stillIdle: Bool
            if case .idle = phase { phase = .preparing; stillIdle = true } else { stillIdle = false }
            lock.unlock()
            if stillIdle { finish(error: .explicitlyCancelled, request: spec.urlRequest.value) }
            else { session.engine.enqueue(.cancel(self)) }
        case .preparing, .running:
            session.engine.enqueue(.cancel(self))
        case .finished:
            break
        }
    }

    /// Pauses the transfer (libcurl stops reading and writing); `resume()` continues it.
    func suspend() {
        lock.lock()
        let wasSuspended = suspended
        suspended = true
        let running: Bool
        if case .running = phase { running = true } else { running = false }
        lock.unlock()
        if !wasSuspended, running { session.engine.enqueue(.pause(self)) }
        if !wasSuspended { emit(posting: Notification.Name.Task.DidSuspend) { $0.requestDidSuspend($1) } } // lifecycle
    }

    /// Starts the transfer, or continues it after `suspend()`.
    func resume() {
        lock.lock()
        let wasSuspended = suspended
        suspended = false
        let idle: Bool
        if case .idle = phase { idle = true } else { idle = false }
        lock.unlock()
        if idle {
            start()
        } else if wasSuspended {
            session.engine.enqueue(.unpause(self))
            emit(posting: Notification.Name.Task.DidResume) { $0.requestDidResume($1) } // lifecycle
        }
    }

    // MARK: - Attempts

    private func beginAttempt() {
        let startTime = Date.timeIntervalSinceReferenceDate
        let initial: URLRequest
        switch spec.urlRequest {
        case let .failure(error):
            finish(error: error, request: nil)
            return
        case let .success(built):
            initial = built
        }
        // lifecycle: adapters may answer asynchronously (RequestAdapter.adapt(_:for:completion:)).
        runAdapters(initial) { result in
            switch result {
            case let .failure(error):
                self.finish(error: error, request: initial)
            case let .success(request):
                self.sendAttempt(request, body: self.spec.body, credential: self.spec.credential,
                                 startTime: startTime, isRedirect: false)
            }
        }
    }

    /// Hands one attempt to the engine: a first attempt or retry (adapted), or a redirect hop
    /// followed by hand (lifecycle: `isRedirect`, with that hop's body and credential).
    func sendAttempt(_ request: URLRequest, body: UploadBody, credential: (user: String, password: String)?,
                     startTime: TimeInterval, isRedirect: Bool) {
        if let error = RequestChecks.validate(request, body: body, allowsBodyInGET: spec.allowsBodyInGET,
                                              unsafeDefaultHeader: session.unsafeDefaultHeader) {
            finish(error: error, request: request)
            return
        }
        var options = session.transferOptions(for: request, credential: credential,
                                              reportsProgress: hasProgressHandlers)
        // lifecycle: a RedirectHandler other than `.follow` sees every hop, so libcurl must not follow.
        if !spec.redirectHandler.followsNatively { options.followRedirects = false }
        let attempt = CurlAttempt(transfer: self, request: request, body: body, options: options,
                                  sink: spec.makeSink(), startTime: startTime)
        lock.lock()
        currentRequest = request
        if isRedirect { redirectHop.count += 1 } else { attempts += 1; redirectHop = RedirectHop() }
        phase = .running
        let cancelled = cancelRequested
        lock.unlock()
        if cancelled {
            finish(error: .explicitlyCancelled, request: request)
            return
        }
        if !session.engine.enqueue(.add(attempt)) {
            finish(error: .sessionDeinitialized, request: request)
        }
    }

    private var hasProgressHandlers: Bool {
        lock.withLock { !downloadProgressHandlers.isEmpty || !uploadProgressHandlers.isEmpty }
    }

    /// Called on the engine thread when an attempt is over.
    func attemptDidFinish(_ result: AttemptResult) {
        var outcome = TransferOutcome(
            request: result.request, lazyResponse: result.lazyResponse, data: (result.sink as? MemorySink)?.data,
            error: result.error,
            timeline: Timeline(requestStartTime: result.startTime, initialResponseTime: result.initialResponseTime,
                               requestCompletedTime: result.completedTime,
                               serializationCompletedTime: result.completedTime),
            metrics: result.metrics, allMetrics: [], sink: result.sink)
        lock.lock()
        if let metrics = result.metrics { metricsHistory.append(metrics) }
        outcome.allMetrics = metricsHistory
        if let response = result.lazyResponse { currentResponse = response }
        let cancelled = cancelRequested
        lock.unlock()
        emitAttemptFinished(result) // lifecycle
        // lifecycle: a redirect to follow by hand starts the next hop (Transfer+Lifecycle.swift).
        if !cancelled, followRedirectByHand(outcome) { return }
        if !cancelled, !spec.retriers.isEmpty, let retryError = Self.retryableError(outcome) {
            // Never on the engine thread: a retrier may take its time.
            let failed = outcome
            DispatchQueue.global().async { self.consultRetriers(self.spec.retriers[...], error: retryError, outcome: failed) }
            return
        }
        if outcome.error == nil { reportFinalProgress(result) }
        complete(outcome)
    }

    /// The error a retrier is asked about: a transport failure, or a status code of 400 or more.
    private static func retryableError(_ outcome: TransferOutcome) -> CurlfireError? {
        switch outcome.error {
        case .explicitlyCancelled?, .sessionDeinitialized?: return nil
        case let error?: return error
        case nil:
            guard let status = outcome.lazyResponse?.statusCode, status >= 400 else { return nil }
            return .responseValidationFailed(reason: .unacceptableStatusCode(code: status))
        }
    }

    private func consultRetriers(_ retriers: ArraySlice<any RequestRetrier>, error: CurlfireError, outcome: TransferOutcome) {
        guard let retrier = retriers.first else {
            complete(outcome)
            return
        }
        let request = requestValue
        let once = OnceFlag()
        // lifecycle: the RetryResult form (its default bridges to the Alamofire 4 `should`).
        retrier.retry(request, for: session, dueTo: error) { result in
            guard once.claim() else { return }
            if let retryError = result.error {
                var failed = outcome
                failed.error = .requestRetryFailed(retryError: retryError, originalError: error)
                self.complete(failed)
                return
            }
            guard result.retryRequired else {
                self.consultRetriers(retriers.dropFirst(), error: error, outcome: outcome)
                return
            }
            let delay = result.delay ?? 0
            if self.lock.withLock({ self.cancelRequested }) {
                self.complete(Self.cancelled(outcome))
                return
            }
            self.emit { $0.requestIsRetrying($1) } // lifecycle
            let retry: @Sendable () -> Void = { self.beginAttempt() }
            if delay > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: retry)
            } else {
                DispatchQueue.global().async(execute: retry)
            }
        }
    }

    private static func cancelled(_ outcome: TransferOutcome) -> TransferOutcome {
        var outcome = outcome
        outcome.error = .explicitlyCancelled
        return outcome
    }

    private func finish(error: CurlfireError, request: URLRequest?) {
        let now = Date.timeIntervalSinceReferenceDate
        let outcome = TransferOutcome(
            request: request, lazyResponse: nil, data: nil, error: error,
            timeline: Timeline(requestStartTime: now, initialResponseTime: now, requestCompletedTime: now,
                               serializationCompletedTime: now),
            metrics: nil, allMetrics: [], sink: nil)
        complete(outcome)
    }

    deinit {
        removeTemporaryBody()
    }

    /// Removes the body file the transfer owns (an encoded multipart form), once.
    private func removeTemporaryBody() {
        if case let .file(url, true) = spec.body { try? FileManager.default.removeItem(at: url) }
    }

    /// Completes the transfer: no more attempts; handlers run.
    func complete(_ outcome: TransferOutcome) { // lifecycle: internal for Transfer+Lifecycle.swift
        removeTemporaryBody()
        if let finishOutcome = spec.finishOutcome {
            // Called on the engine thread (or the caller's): file work such as a download's move
            // runs on a global queue; until it is done the transfer still counts as running.
            DispatchQueue.global().async { self.publish(finishOutcome(outcome)) }
        } else {
            publish(outcome)
        }
    }

    private func publish(_ outcome: TransferOutcome) {
        emit(posting: Notification.Name.Task.DidComplete) { $0.requestDidFinish($1) } // lifecycle: before any handler's didParseResponse
        lock.lock()
        phase = .finished(outcome)
        // No report follows; a closure that captures its own request (`request.downloadProgress {
        // … request.cancel() }`) would otherwise keep this transfer, and so the session, alive.
        downloadProgressHandlers.removeAll()
        uploadProgressHandlers.removeAll()
        let drainNow = !handlers.isEmpty && !draining
        if drainNow { draining = true }
        lock.unlock()
        if drainNow {
            // Only dispatches (or hands over to an inline waiter): cheap enough for the engine thread.
            drain(outcome)
        }
    }

    // MARK: - Progress (engine thread)

    func reportDownloadProgress(completed: Int64, total: Int64?) {
        let handlers = lock.withLock { downloadProgressHandlers }
        Self.report(handlers, completed: completed, total: total)
    }

    func reportUploadProgress(completed: Int64, total: Int64) {
        let handlers = lock.withLock { uploadProgressHandlers }
        Self.report(handlers, completed: completed, total: total)
    }

    /// A successful transfer always ends with a complete report in each direction: libcurl's last
    /// progress callback can come before the final bytes are counted.
    private func reportFinalProgress(_ result: AttemptResult) {
        let sent = result.uploadedBodyBytes
        if sent > 0 { reportUploadProgress(completed: sent, total: sent) }
        let received = result.sink.byteCount
        reportDownloadProgress(completed: received, total: received)
    }

    private static func report(_ handlers: [ProgressHandler], completed: Int64, total: Int64?) {
        guard !handlers.isEmpty else { return }
        for handler in handlers {
            // A fresh Progress per report: Foundation's Progress on Linux traps when an existing
            // object's total is reset, which a restarted transfer would do.
            let closure = handler.closure
            handler.queue.async {
                let progress = Progress(totalUnitCount: total ?? -1)
                progress.completedUnitCount = completed
                closure(progress)
            }
        }
    }
}
