import Foundation

/// Where a request is in its life, as Alamofire 5's `Request.State` (``Request/state``).
public enum RequestState: Sendable, Hashable {
    /// Created; nothing has been sent (no response handler yet, or waiting for `resume()`).
    case initialized
    /// Started and running: adapting, sending, receiving, or deciding on a retry or a redirect.
    case resumed
    /// Paused by `suspend()` until `resume()`.
    case suspended
    /// Cancelled by `cancel()` (or its awaiting task): being stopped, or over.
    case cancelled
    /// Over, successfully or not, without being cancelled.
    case finished

    /// The public state for a machine state (a pure function, unit-tested).
    ///
    /// - Parameters:
    ///   - state:       The request state machine's state (a finished one says whether `cancel()` ended it).
    ///   - isSuspended: Whether `suspend()` is in effect.
    init(_ state: RequestStateMachine.State, isSuspended: Bool) {
        switch state {
        case .idle:
            self = isSuspended ? .suspended : .initialized
        case .cancelling:
            self = .cancelled
        case .finished(.cancelled):
            self = .cancelled
        case .finished:
            self = .finished
        case .adapting, .running, .awaitingRedirectDecision, .awaitingRetryDecision, .delayingRetry:
            self = isSuspended ? .suspended : .resumed
        }
    }
}

extension Request {
    /// Alamofire 5's name for ``RequestState``, so `DataRequest.State.resumed` reads as it does there.
    public typealias State = RequestState
}
