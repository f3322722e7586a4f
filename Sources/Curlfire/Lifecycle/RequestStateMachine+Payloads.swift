import Foundation

// The values the request state machine's events and states carry (RequestStateMachine.swift): what
// an ended attempt, the retriers and the end say, the timers it holds, the hops of an attempt, the
// stage results, and the handlers with the outcome they get.
extension RequestStateMachine {
    /// What the lifecycle needs to know of an ended attempt.
    enum AttemptVerdict: Equatable, Sendable {
        /// A 3xx with a `Location` to follow (and following is on).
        case redirect
        /// A failure the retriers are asked about (a transport error, or a status of 400 or more).
        case retryable
        /// Nothing more to do: deliver it.
        case final
    }

    /// What the retriers decided.
    enum RetryDecision: Equatable, Sendable {
        /// Try again after the delay (seconds; 0 for at once).
        case retry(after: TimeInterval)
        /// Deliver the failure as it is.
        case doNotRetry
        /// Fail with the retrier's own error (``CurlfireError/requestRetryFailed(retryError:originalError:)``),
        /// which the event carries to the ``Finish/retryFailed(_:)`` it leads to.
        case failWithRetryError(RetryFailure)
    }

    /// How the request ends.
    enum Finish: Equatable, Sendable {
        /// With the last attempt's outcome (or the adaptation failure) as it is.
        case lastOutcome
        /// With ``CurlfireError/explicitlyCancelled``.
        case cancelled
        /// With a timeout: `timeoutIntervalForResource` elapsed.
        case resourceTimedOut
        /// With `tooManyRedirects`: ``maximumRedirects`` hops were followed.
        case tooManyRedirects
        /// With the retrier's error, and the error the retriers were asked about.
        case retryFailed(RetryFailure)
    }

    /// A timer the owner armed for a stage (the retry delay), held by the state it belongs to so that
    /// leaving the stage early cancels it. Equal only to itself.
    final class StageTimer: Equatable, Sendable, CustomStringConvertible {
        private let cancelTimer: @Sendable () -> Void

        /// - Parameter cancel: Cancels the timer; called at most once, under no lock.
        init(cancel: @escaping @Sendable () -> Void) {
            cancelTimer = cancel
        }

        /// Cancels the timer.
        func cancel() {
            cancelTimer()
        }

        static func == (lhs: StageTimer, rhs: StageTimer) -> Bool { lhs === rhs }

        var description: String { "timer" }
    }

    /// Why a retrier failed the request: its own error and the error it was asked about, carried by
    /// the `retryDecided(.failWithRetryError)` event to the `finish(.retryFailed)` action. Equal only to itself.
    final class RetryFailure: Equatable, Sendable, CustomStringConvertible {
        /// The retrier's error (or `bodyStreamFailed(.notReplayable)` for a retry of a started stream).
        let retryError: any Error
        /// The error the retriers were asked about.
        let originalError: CurlfireError

        init(retryError: any Error, originalError: CurlfireError) {
            self.retryError = retryError
            self.originalError = originalError
        }

        static func == (lhs: RetryFailure, rhs: RetryFailure) -> Bool { lhs === rhs }

        var description: String { "RetryFailure(\(retryError))" }
    }

    /// What starting an attempt needs (the payload of ``Action/startAttempt(_:_:)``).
    struct AttemptStart: Sendable {
        /// What the hop sends: the adapted request or the redirect target, with the body and the
        /// credentials the attempt still sends.
        var hop: NextHop
        /// When the attempt began (its adapters started), where the first hop's Timeline starts;
        /// `nil` for a redirect hop, whose Timeline starts when it is planned.
        var startedAt: TimeInterval?
        /// The request's `timeoutIntervalForResource` deadline (monotonic nanoseconds, 0 for none),
        /// which the engine enforces on the attempt.
        var deadline: UInt64
        /// parity: where a retried download continues (``RequestStateMachine/downloadResume``).
        var downloadResume: FileSink.Plan?
        /// cache: the stored entry the attempt's first hop was made conditional on
        /// (``RequestStateMachine/cacheCandidate``): a redirect hop drops the validators it added.
        var cacheCandidate: CachedEntry?
    }

    /// What an ended stage leaves the request with (``RequestStateMachine/lastResult``).
    struct StageResult: Sendable {
        /// The outcome the request ends with unless a later stage replaces it.
        var outcome: TransferOutcome
        /// The error the retriers are asked about (a transport failure, a status of 400 or more, an
        /// adapter's failure); `nil` when there is nothing to retry.
        var retryableError: CurlfireError?
        /// parity: where a retry of a download continues after this attempt
        /// (``RequestStateMachine/downloadResume``); ``FileSink/RetryResume/keepsPrevious`` for
        /// everything but a download that resumes on retry.
        var retryResume: FileSink.RetryResume = .keepsPrevious
        /// Whether an attempt in the engine produced it (its metrics are the hop's, and the outcome gets
        /// every hop's metrics); `false` for a stage the owner ended itself (a refused check, a cache hit
        /// or a cache-only miss, an adapter's failure), whose outcome is delivered as it was made.
        var fromEngine = false
    }

    /// Where the request's deadline timer is.
    enum DeadlineTimer: Equatable, Sendable {
        /// Not armed yet: no stage has waited outside the engine (or the request has no deadline).
        case unarmed
        /// Asked for by ``deadlineTimerNeeded()`` (``Action/armDeadlineTimer(at:)``): the owner is arming
        /// it; or it was handed back at the end.
        case arming
        /// Armed and reported with ``deadlineTimerArmed(_:)``.
        case armed(StageTimer)
    }

    /// What the hops of one attempt carry from one to the next (Curlfire follows redirects itself):
    /// the payload of ``State/running(_:_:)``, ``State/cancelling(_:_:_:)`` and
    /// ``State/awaitingRedirectDecision(_:_:)``; a new attempt (a first one or a retry) starts a new one.
    struct HopChain: Equatable, Sendable {
        /// Redirects followed before the current hop.
        var redirectCount = 0
        /// Seconds the hops before the current one took.
        var redirectDuration: TimeInterval = 0
        /// Whether a hop dropped the body (303, or POST on 301/302): no later hop sends it.
        var bodyDropped = false
        /// Whether a hop left the origin the credentials were given for: no later hop sends them.
        var credentialDropped = false

        /// Adds the redirects followed before this hop to its metrics, then counts this hop.
        ///
        /// A value the metrics already hold is not set again: every hop records both (0 for a
        /// request that was not redirected) while the attempt's result still shares the metrics'
        /// copy-on-write box, so setting it would copy the box for nothing.
        mutating func record(_ metrics: inout TransferMetrics) {
            if metrics.redirectCount != redirectCount { metrics.redirectCount = redirectCount }
            // Bit patterns: -0 and NaN are stored as given.
            if metrics.redirectDuration.bitPattern != redirectDuration.bitPattern {
                metrics.redirectDuration = redirectDuration
            }
            redirectCount += 1
            redirectDuration += metrics.totalDuration
        }
    }

    /// A response handler and where it runs: on a queue, or — for internal handlers that only hand
    /// the outcome over (an async waiter, a stream consumer) — inline where the outcome is published.
    struct Handler: Sendable {
        /// What the drain loop does with a handler.
        enum Body: Sendable {
            /// Called with the outcome, inline in the drain loop.
            case inline(@Sendable (TransferOutcome) -> Void)
            /// Called with the outcome on the queue (a closure around both is made for the hand-off).
            case dispatched(DispatchQueue, @Sendable (TransferOutcome) -> Void)
            /// Handed to the queue as it is: the closure reads the published outcome itself
            /// (``Transfer/publishedOutcome``), so the hand-off makes no closure of its own — one
            /// allocation fewer per response handler.
            case queued(DispatchQueue, @Sendable () -> Void)
        }

        let body: Body

        /// A handler given the outcome: on `queue`, or inline when `queue` is `nil`.
        init(queue: DispatchQueue?, run: @escaping @Sendable (TransferOutcome) -> Void) {
            body = queue.map { .dispatched($0, run) } ?? .inline(run)
        }

        /// A handler run on `queue` that reads the published outcome itself.
        init(queue: DispatchQueue, job: @escaping @Sendable () -> Void) {
            body = .queued(queue, job)
        }

        /// Where the handler runs; `nil` inline in the drain loop.
        var queue: DispatchQueue? {
            switch body {
            case .inline: return nil
            case let .dispatched(queue, _), let .queued(queue, _): return queue
            }
        }

        /// Runs the handler here, now, with `outcome` (the published one: a queued handler reads that
        /// itself). For tests and inline handlers; the drain loop hands queued ones to their queue.
        func run(_ outcome: TransferOutcome) {
            switch body {
            case let .inline(run), let .dispatched(_, run): run(outcome)
            case let .queued(_, job): job()
            }
        }
    }

    /// Where the handlers are in getting the outcome. Handlers are attached in every ``State``, so this
    /// is a part of the machine beside ``state`` (one value under the same lock); it leaves
    /// ``collecting(_:)`` only once the machine is ``State/finished(_:)`` and the owner has the outcome.
    enum Delivery: Sendable {
        /// The outcome is not known yet: the handlers attached so far, in attach order.
        case collecting(HandlerList)
        /// The outcome is published and one drain loop hands it to the handlers listed, oldest first;
        /// a handler attached meanwhile joins the list. The list may be empty while the loop's last
        /// handler runs: the loop ends at its next ``nextHandler()``.
        case draining(TransferOutcome, HandlerList)
        /// Every handler has the outcome; a handler attached now starts a new drain at once.
        case delivered(TransferOutcome)
    }
}
