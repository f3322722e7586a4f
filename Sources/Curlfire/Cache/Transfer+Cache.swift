import Foundation
import FoundationNetworking

/// The cache settings of one request: set for the data and upload requests of a session whose
/// configuration has a ``ResponseCache`` (downloads and streams are never cached, and never have
/// both: the cache's completion step replaces `Definition.outcomeHook`).
struct RequestCacheSettings: Sendable {
    let cache: ResponseCache
    /// The request's own handler (``DataTransferRequest/cacheResponse(using:)``), else the session's.
    var handler: (any CachedResponseHandler)?
    /// The session's default headers, part of what a request sends (for `Vary`).
    let defaultHeaders: HTTPHeaders

    /// The headers a request is sent with: its own, plus the session defaults it does not set.
    func effectiveHeaders(_ request: URLRequest) -> [String: String] {
        var headers = request.allHTTPHeaderFields ?? [:]
        for header in defaultHeaders where HeaderLookup.value(header.name.lowercased(), in: headers) == nil {
            headers[header.name] = header.value
        }
        return headers
    }
}

// The two hooks the transfer calls (architecture rule 12): `consultCache` before the first hop's
// attempt, `runCacheHook` when the request is over. Everything else is pure (CacheDecision,
// CacheRules, Freshness) or storage (ResponseCache).
extension Transfer {
    /// What the first hop does after consulting the cache.
    enum CacheConsultation {
        /// The request ended without an attempt (a hit, or a cache-only miss).
        case answered
        /// Send this request (perhaps made conditional).
        case send(URLRequest)
    }

    /// Cache hook 1, before each hop's attempt. The first hop (never planned on the engine thread)
    /// consults the store: serve a stored response, fail a cache-only miss, or say what to send. A
    /// redirect hop only loses the validators the cache added for the first hop's URL (`candidate`,
    /// which the `startAttempt` action carries).
    func consultCache(_ request: URLRequest, stage: RequestStateMachine.Stage, startTime: TimeInterval,
                      candidate: CachedEntry?) -> CacheConsultation {
        guard let settings = definition.cache else { return .send(request) }
        guard stage.hop == 0 else {
            return .send(candidate.map { CacheRules.removingValidators(of: $0, from: request) } ?? request)
        }
        let headers = settings.effectiveHeaders(request)
        let key = CachedEntry.key(for: request.url)
        let stored = key.flatMap { settings.cache.entry(forKey: $0) }
            .flatMap { CacheRules.varyMatches($0, requestHeaders: headers) ? $0 : nil }
        let now = Date()
        switch CacheDecision.decide(request, headers: headers, entry: stored, now: now, shared: settings.cache.isShared) {
        case let .load(sent, candidate):
            withLock { $0.machine.cacheConsulted(candidate: candidate, for: stage) }
            emitPhase(.cacheLookup(candidate == nil ? .miss : .revalidating)) // observability
            return .send(sent)
        case .fail:
            emitPhase(.cacheLookup(.miss)) // observability
            let error = CurlfireError.cacheMiss(url: request.url?.absoluteString ?? "")
            var result = RequestStateMachine.StageResult(outcome: Self.failedOutcome(error, request: request))
            send { $0.attemptEnded(.final, result: &result, for: stage) }
            return .answered
        case let .serve(entry, status, revalidateInBackground):
            emitPhase(.cacheLookup(status == .stale ? .stale : .hit)) // observability
            var outcome = Self.outcome(serving: entry, for: request, status: status, startTime: startTime, now: now)
            if request.httpMethod?.uppercased() == "HEAD" { outcome.data = Data() }
            withLock { $0.currentResponse = outcome.lazyResponse }
            var served = RequestStateMachine.StageResult(outcome: outcome)
            send { $0.attemptEnded(.final, result: &served, for: stage) }
            if revalidateInBackground, let key, settings.cache.beginRevalidation(key) {
                revalidate(request) { settings.cache.endRevalidation(key) }
            }
            return .answered
        }
    }

    /// An outcome made of a stored entry, with its current `Age`.
    static func outcome(serving entry: CachedEntry, for request: URLRequest, status: CacheStatus,
                        startTime: TimeInterval, now: Date) -> TransferOutcome {
        let url = request.url ?? URL(fileURLWithPath: "/")
        let age = Int(Freshness.currentAge(of: entry, now: now).rounded(.down))
        let end = Date.timeIntervalSinceReferenceDate
        var outcome = TransferOutcome(
            head: .built(request), lazyResponse: entry.lazyResponse(url: url, replacing: [.init(name: "Age", value: "\(age)")]),
            data: entry.body, error: nil,
            timeline: Timeline(requestStartTime: startTime, initialResponseTime: end, requestCompletedTime: end,
                               serializationCompletedTime: end),
            metrics: nil, allMetrics: [], sink: nil)
        outcome.cacheStatus = status
        return outcome
    }

    /// Sends a conditional request for a response served under `stale-while-revalidate` (one at a
    /// time per URL); its 304 or 200 refreshes the store, then `done` runs.
    private func revalidate(_ request: URLRequest, done: @escaping @Sendable () -> Void) {
        var refresh = request
        refresh.cachePolicy = .reloadRevalidatingCacheData
        session.request(refresh).response(queue: .global()) { _ in done() }
    }

    /// Cache hook 2, when the request is over (off the engine thread): merge a 304 into the stored
    /// entry, serve the stale entry on an error (`stale-if-error`), invalidate after an unsafe
    /// method, or store a storable response — then deliver.
    func runCacheHook(_ outcome: TransferOutcome, _ settings: RequestCacheSettings) {
        let candidate = outcome.cacheCandidate // the machine's, carried by its `finish` action
        guard outcome.cacheStatus == .network, let request = outcome.request, let url = request.url,
              let key = CachedEntry.key(for: url) else { return announce(outcome) }
        let method = request.httpMethod?.uppercased() ?? "GET"
        let response = outcome.response
        let status = response?.statusCode
        var headers = settings.effectiveHeaders(request)
        if definition.credential != nil, HeaderLookup.value("authorization", in: headers) == nil {
            headers["Authorization"] = "(authenticate(user:password:))" // counts as authorized for a shared cache
        }
        let now = Date()
        let requestTime = Date(timeIntervalSinceReferenceDate: outcome.timeline.requestStartTime)
        let responseTime = outcome.timeline.initialResponseTime > 0
            ? Date(timeIntervalSinceReferenceDate: outcome.timeline.initialResponseTime) : now
        if outcome.error == nil, let status, status < 400, CacheRules.isUnsafe(method) {
            settings.cache.remove(key: key)
            for name in ["Location", "Content-Location"] {
                if let target = response?.value(forHTTPHeaderField: name).flatMap({ URL(string: $0, relativeTo: url) }),
                   target.host == url.host, let targetKey = CachedEntry.key(for: target.absoluteURL) {
                    settings.cache.remove(key: targetKey)
                }
            }
            return announce(outcome)
        }
        if let candidate, candidate.key == key {
            if outcome.error == nil, status == 304, let response {
                let merged = CacheRules.merged(candidate, with: CachedEntry.fields(of: response),
                                               requestTime: requestTime, responseTime: responseTime)
                if CacheRules.isStorable(method: "GET", status: merged.statusCode, requestHeaders: headers,
                                         responseFields: merged.fields, shared: settings.cache.isShared) {
                    settings.cache.store(merged)
                } else {
                    settings.cache.remove(key: key)
                }
                var served = outcome
                served.lazyResponse = merged.lazyResponse(url: url)
                served.data = merged.body
                served.cacheStatus = .revalidated
                withLock { $0.currentResponse = served.lazyResponse }
                return announce(served)
            }
            var transportFailed = false
            if case .sessionTaskFailed? = outcome.error { transportFailed = true }
            if CacheDecision.servesStaleOnError(candidate, status: status, transportFailed: transportFailed,
                                                requestHeaders: headers, now: now, shared: settings.cache.isShared) {
                var served = Self.outcome(serving: candidate, for: request, status: .stale,
                                          startTime: outcome.timeline.requestStartTime, now: now)
                served.metrics = outcome.metrics
                served.allMetrics = outcome.allMetrics
                withLock { $0.currentResponse = served.lazyResponse }
                return announce(served)
            }
        }
        // A body handed to `stream(closure:)` was not kept (no `data`): there is nothing to store.
        guard outcome.error == nil, let response, let status, outcome.data != nil || method == "HEAD",
              CacheRules.isStorable(method: method, status: status, requestHeaders: headers,
                                    responseFields: CachedEntry.fields(of: response), shared: settings.cache.isShared)
        else { return announce(outcome) }
        let proposed = CachedResponse(response: response, data: outcome.data ?? Data())
        let store: @Sendable (CachedResponse?) -> Void = { [self, headers] answer in
            if let answer, answer.storagePolicy != .notAllowed {
                let fields = CachedEntry.fields(of: answer.response)
                let varyNames = CacheRules.varyNames(HeaderLookup.value("vary", in: fields))
                let entry = CachedEntry(key: key, statusCode: answer.response.statusCode, fields: fields, body: answer.data,
                                        requestTime: requestTime, responseTime: responseTime, varyNames: varyNames,
                                        varyValues: CacheRules.varyValues(names: varyNames, requestHeaders: headers))
                settings.cache.store(entry, memoryOnly: answer.storagePolicy == .allowedInMemoryOnly)
            }
            announce(outcome)
        }
        guard let handler = settings.handler else { return store(proposed) }
        let once = OnceFlag()
        handler.request(requestValue, willCache: proposed) { answer in
            guard once.claim() else { return }
            store(answer)
        }
    }
}
