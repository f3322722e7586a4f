import Foundation
import FoundationNetworking

/// What the redirects followed by hand have changed so far in one attempt.
struct RedirectHop {
    /// Hops followed.
    var count = 0
    /// Whether a 301/302/303 turned the request into a `GET` without body.
    var bodyDropped = false
    /// Whether a hop left the origin the credentials were given for.
    var credentialDropped = false
}

// The request lifecycle around the engine: event monitors, adapters that answer asynchronously,
// redirects followed by hand. Kept apart from Transfer.swift; runs off the engine thread except
// `emitAttemptFinished` and `followRedirectByHand`, which only dispatch.
extension Transfer {
    /// The public request value for this transfer (a `DataRequest`, `UploadRequest`, `StreamRequest`, …).
    var requestValue: any Request {
        spec.makeRequestValue(RequestCore(session: session, spec: spec, transfer: self))
    }

    // MARK: - Events

    /// Sends an event to the session's monitors (each on its own queue), and posts `posting`
    /// when the event has a notification.
    func emit(posting: Notification.Name? = nil, _ event: @escaping @Sendable (any EventMonitor, any Request) -> Void) {
        let monitors = session.eventMonitor
        guard !monitors.isEmpty || posting != nil else { return }
        let request = requestValue
        if let posting { monitors.post(posting, request: request) }
        if !monitors.isEmpty { monitors.send { event($0, request) } }
    }

    /// The transfer started: the request was built (or not), and it is running.
    func emitStarted() {
        switch spec.urlRequest {
        case let .success(request): emit { $0.request($1, didCreateInitialURLRequest: request) }
        case let .failure(error): emit { $0.request($1, didFailToCreateURLRequestWithError: error) }
        }
        emit(posting: Notification.Name.Task.DidResume) { $0.requestDidResume($1) }
    }

    /// An attempt is over (engine thread: only dispatches).
    func emitAttemptFinished(_ result: AttemptResult) {
        if let metrics = result.metrics { emit { $0.request($1, didGatherMetrics: metrics) } }
        let error = result.error
        emit { $0.request($1, didCompleteAttemptWith: error) }
    }

    // MARK: - Adapters

    /// Runs the adapters in order, each through its completion form, then calls `done` once.
    func runAdapters(_ initial: URLRequest, done: @escaping @Sendable (Result<URLRequest, CurlfireError>) -> Void) {
        let adapters = spec.adapters
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

    // MARK: - Redirects followed by hand

    /// When the attempt ended with a redirect and a ``RedirectHandler`` other than
    /// ``Redirector/follow`` is in effect, asks it (off the engine thread) and sends the next hop
    /// or delivers the 3xx. Returns `false` when there is nothing to follow.
    func followRedirectByHand(_ outcome: TransferOutcome) -> Bool {
        guard let handler = spec.redirectHandler, !spec.redirectHandler.followsNatively,
              session.configuration.followsRedirects, outcome.error == nil,
              let response = outcome.response, let sent = outcome.request,
              let proposal = RedirectRules.redirect(from: sent, response: response)
        else { return false }
        let maximum = session.configuration.maximumRedirects
        let hop = lock.withLock { redirectHop }
        if hop.count >= maximum {
            var failed = outcome
            failed.error = .sessionTaskFailed(code: .tooManyRedirects, message: "Maximum (\(maximum)) redirects followed")
            complete(failed)
            return true
        }
        let request = requestValue
        DispatchQueue.global().async {
            let once = OnceFlag()
            handler.request(request, willBeRedirectedTo: proposal.request, for: response) { next in
                guard once.claim() else { return }
                guard let next else { return self.complete(outcome) }
                self.sendHop(RedirectRules.stripForwardedCredentials(next, original: sent), from: sent,
                             keepsBody: proposal.keepsBody, response: response, outcome: outcome)
            }
        }
        return true
    }

    private func sendHop(_ next: URLRequest, from sent: URLRequest, keepsBody: Bool, response: HTTPURLResponse,
                         outcome: TransferOutcome) {
        lock.lock()
        let cancelled = cancelRequested
        if !keepsBody { redirectHop.bodyDropped = true }
        if !RedirectRules.sameOrigin(sent.url, next.url) { redirectHop.credentialDropped = true }
        let hop = redirectHop
        lock.unlock()
        if cancelled {
            var failed = outcome
            failed.error = .explicitlyCancelled
            return complete(failed)
        }
        emit { $0.request($1, willRedirectTo: next, for: response) }
        sendAttempt(next, body: hop.bodyDropped ? .none : spec.body,
                    credential: hop.credentialDropped ? nil : spec.credential,
                    startTime: Date.timeIntervalSinceReferenceDate, isRedirect: true)
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
