// Retry with backoff and token refresh, against stateful endpoints served in this process by a
// CurlfireTesting MockServer (RetryEndpoints.swift): `/flaky` fails N times then succeeds;
// `/token-protected` accepts only the current bearer token, which `/token/refresh` rotates.
// Resilience.swift adds Retry-After, a retry budget, idempotency keys and a circuit breaker.
//
//     swift run Retry
//
// Exits non-zero when a check fails.
import Curlfire
import CurlfireTesting
import Foundation
import PlaygroundSupport

Playground.begin("Retry")
let endpoints = RetryEndpoints()
let server: MockServer
do {
    server = try MockServer { endpoints.respond(to: $0) }
} catch {
    Playground.fail("cannot start the MockServer: \(error)")
}
let base = server.baseURL
let run = UUID().uuidString.prefix(8)  // keys and realms unique to this run

// Every attempt, as the session's event monitor sees it.
let monitor = ClosureEventMonitor(queue: DispatchQueue(label: "monitor"))
monitor.requestDidGatherMetrics = { request, metrics in
    let status = request.response.map { "\($0.statusCode)" } ?? "no response"
    Playground.note(String(format: "attempt %d: %@ — connect %@, first byte %@, total %@%@", request.retryCount + 1, status,
                           Format.duration(metrics.connectDuration), Format.duration(metrics.firstByteDuration),
                           Format.duration(metrics.totalDuration), metrics.isReusedConnection ? ", reused connection" : ""))
}
monitor.requestIsRetrying = { request in Playground.note("retrying (\(request.retryCount) so far)") }

// MARK: - 1. RetryPolicy with exponential backoff

let policy = RetryPolicy(retryLimit: 3, exponentialBackoffBase: 2, exponentialBackoffScale: 0.2, jitter: .none)
let session = SessionManager(eventMonitors: [monitor])
session.retrier = policy

struct Flaky: Decodable, Sendable {
    let attempt: Int
    let failing: Bool
}

Playground.section("GET /flaky?fail=2 with RetryPolicy(retryLimit: 3, base 2, scale 0.2 s, jitter: .none)")
let flaky = await session.request("\(base.absoluteString)/flaky?key=\(run)-a&fail=2").validate()
    .serializingDecodable(Flaky.self).response
monitor.queue.sync {}
Playground.check(flaky.value?.attempt == 3 && flaky.response?.statusCode == 200,
                 "succeeded on attempt \(flaky.value?.attempt ?? 0) with \(flaky.response?.statusCode ?? 0)")
Playground.check(flaky.allMetrics.count == 3, "allMetrics holds \(flaky.allMetrics.count) attempts")
for (index, pair) in zip(flaky.allMetrics, flaky.allMetrics.dropFirst()).enumerated() {
    let gap = pair.1.startDate.timeIntervalSince(pair.0.startDate.addingTimeInterval(pair.0.totalDuration))
    let delay = policy.delay(forRetry: index)
    Playground.check(gap >= delay * 0.9, "waited \(Format.duration(gap)) before attempt \(index + 2) (backoff \(Format.duration(delay)))")
}
Playground.note("the last attempt's " + flaky.timeline.description)

Playground.section("GET /flaky?fail=5: the retry limit runs out")
let exhausted = await session.request("\(base.absoluteString)/flaky?key=\(run)-b&fail=5").validate().serializingData().response
monitor.queue.sync {}
if case .responseValidationFailed(.unacceptableStatusCode(503))? = exhausted.error {
    Playground.check(exhausted.allMetrics.count == 4, "gave up after \(exhausted.allMetrics.count) attempts with unacceptableStatusCode(503)")
} else {
    Playground.check(false, "expected unacceptableStatusCode(503), got \(exhausted.error.map { "\($0)" } ?? "success")")
}

Playground.section("POST /flaky?fail=1: POST is not idempotent, so it is not retried")
let posted = await session.request("\(base.absoluteString)/flaky?key=\(run)-c&fail=1", method: .post).validate()
    .serializingData().response
monitor.queue.sync {}
Playground.check(posted.response?.statusCode == 503 && posted.allMetrics.count == 1,
                 "one attempt, status \(posted.response?.statusCode ?? 0)")

// MARK: - 2. Token refresh with AuthenticationInterceptor

struct BearerToken: AuthenticationCredential {
    let value: String
    var requiresRefresh: Bool { false }
}

struct TokenReply: Decodable, Sendable {
    let token: String
}

/// Refreshes through `/token/refresh` with a plain session (the intercepted one would wait for
/// its own refresh).
final class TokenAuthenticator: Authenticator {
    let refreshURL: String
    let plain = SessionManager()
    let refreshes = Recorder<String>()

    init(refreshURL: String) { self.refreshURL = refreshURL }

    func apply(_ credential: BearerToken, to urlRequest: inout URLRequest) {
        urlRequest.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: BearerToken, for session: SessionManager,
                 completion: @escaping @Sendable (Result<BearerToken, Error>) -> Void) {
        refreshes.append(credential.value)
        Playground.note("refreshing \"\(credential.value)\" …")
        plain.request(refreshURL, method: .post).validate().responseDecodable(of: TokenReply.self) { response in
            completion(response.result.map { BearerToken(value: $0.token) }.mapError { $0 })
        }
    }

    func didRequest(_ urlRequest: URLRequest, with response: HTTPURLResponse, failDueToAuthenticationError error: Error) -> Bool {
        response.statusCode == 401
    }

    func isRequest(_ urlRequest: URLRequest, authenticatedWith credential: BearerToken) -> Bool {
        urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

struct Protected: Decodable, Sendable {
    let authenticated: Bool
    let token: String
}

struct Stats: Decodable, Sendable {
    let refreshes: Int
    let accepted: Int
    let rejected: Int
}

let realm = "realm\(run)"
let count = 20
Playground.section("\(count) concurrent GET /token-protected with a stale token")
let authenticator = TokenAuthenticator(refreshURL: "\(base.absoluteString)/token/refresh?realm=\(realm)")
let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: BearerToken(value: "stale"))
let authenticated = SessionManager()
authenticated.adapter = interceptor
authenticated.retrier = interceptor
let replies = await withTaskGroup(of: DataResponse<Protected>.self) { group in
    for _ in 0..<count {
        group.addTask {
            await authenticated.request("\(base.absoluteString)/token-protected?realm=\(realm)").validate()
                .serializingDecodable(Protected.self).response
        }
    }
    var all: [DataResponse<Protected>] = []
    for await reply in group { all.append(reply) }
    return all
}
let tokens = Set(replies.compactMap { $0.value?.token })
Playground.check(replies.allSatisfy { $0.value?.authenticated == true },
                 "\(replies.filter { $0.value != nil }.count) of \(count) requests succeeded, all with \(tokens.sorted())")
Playground.check(authenticator.refreshes.all == ["stale"], "the authenticator refreshed \(authenticator.refreshes.all.count) time(s)")
let stats = await SessionManager().request("\(base.absoluteString)/token/stats?realm=\(realm)").validate()
    .serializingDecodable(Stats.self).response
if let stats = stats.value {
    Playground.note("the server saw \(stats.rejected) request(s) with 401, \(stats.refreshes) refresh, \(stats.accepted) accepted")
    Playground.check(stats.refreshes == 1 && stats.accepted == count && (1...count).contains(stats.rejected),
                     "exactly one refresh on the server; every request accepted once")
} else {
    Playground.check(false, "cannot read /token/stats: \(stats.debugDescription)")
}
let retried = replies.filter { $0.allMetrics.count == 2 }.count
Playground.note("\(retried) request(s) took two attempts (401, then 200); \(count - retried) went out after the refresh")

await resilienceSections()

Playground.finish()
