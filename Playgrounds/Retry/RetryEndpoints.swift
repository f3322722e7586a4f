// The playground's endpoints: a dispatcher for a CurlfireTesting MockServer in this process that
// keeps a little state, so that a retry or a refresh changes what the next request gets.
import CurlfireTesting
import Foundation

/// `/flaky`, `/token-protected`, `/token/refresh` and `/token/stats`, answered with JSON bodies.
///
/// - `/flaky?key=K&fail=N` counts the requests of each key: the first `N` get `503`, later ones `200`;
///   the body says which attempt this was.
/// - `/token-protected?realm=R` answers `200` only to `Authorization: Bearer <the realm's current
///   token>`, else `401` with `WWW-Authenticate: Bearer`.
/// - `/token/refresh?realm=R` rotates the realm's token (`R-1`, `R-2`, …) and returns it.
/// - `/token/stats?realm=R` returns `{"accepted", "refreshes", "rejected"}` for the realm.
///
/// Serve them with `MockServer(dispatcher: endpoints.respond)`. The dispatcher runs on each
/// connection's own thread: the state is guarded by a lock.
final class RetryEndpoints: @unchecked Sendable {
    private struct Realm {
        var token: String?
        var refreshes = 0
        var accepted = 0
        var rejected = 0
    }

    private struct FlakyReply: Encodable {
        let key: String
        let attempt: Int
        let failing: Bool
    }

    private struct Verdict: Encodable {
        let authenticated: Bool
        let token: String?
    }

    private struct TokenReply: Encodable {
        let token: String
    }

    private struct StatsReply: Encodable {
        let refreshes: Int
        let accepted: Int
        let rejected: Int
    }

    /// Guards `flakyCounts` and `realms`.
    private let lock = NSLock()
    private var flakyCounts: [String: Int] = [:]
    private var realms: [String: Realm] = [:]

    /// No requests seen yet.
    init() {}

    /// The answer to `request`, updating the state.
    func respond(to request: RecordedRequest) -> MockResponse {
        let query = Dictionary(request.queryItems.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        switch request.pathWithoutQuery {
        case "/flaky":
            let key = query["key"] ?? ""
            let fail = query["fail"].flatMap(Int.init) ?? 1
            let attempt = lock.withLock { () -> Int in
                flakyCounts[key, default: 0] += 1
                return flakyCounts[key, default: 0]
            }
            let failing = attempt <= fail
            return .json(FlakyReply(key: key, attempt: attempt, failing: failing), statusCode: failing ? 503 : 200)
        case "/token/refresh":
            let name = query["realm"] ?? "default"
            let token = lock.withLock { () -> String in
                realms[name, default: Realm()].refreshes += 1
                let token = "\(name)-\(realms[name, default: Realm()].refreshes)"
                realms[name, default: Realm()].token = token
                return token
            }
            return .json(TokenReply(token: token))
        case "/token/stats":
            let realm = lock.withLock { realms[query["realm"] ?? "default", default: Realm()] }
            return .json(StatsReply(refreshes: realm.refreshes, accepted: realm.accepted, rejected: realm.rejected))
        case "/token-protected":
            let name = query["realm"] ?? "default"
            let authorization = request.header("Authorization")
            let token = lock.withLock { () -> String? in
                guard let token = realms[name]?.token, authorization == "Bearer \(token)" else {
                    realms[name, default: Realm()].rejected += 1
                    return nil
                }
                realms[name, default: Realm()].accepted += 1
                return token
            }
            guard let token else {
                var reply = MockResponse.json(Verdict(authenticated: false, token: nil), statusCode: 401)
                reply.headers["WWW-Authenticate"] = "Bearer"
                return reply
            }
            return .json(Verdict(authenticated: true, token: token))
        default:
            return .text("no such endpoint: \(request.path)\n", statusCode: 404)
        }
    }
}
