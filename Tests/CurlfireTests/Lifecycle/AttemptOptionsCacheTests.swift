@testable import Curlfire
import XCTest

/// Consecutive plain hops of a session share one boxed copy of their settings; a hop whose settings
/// differ, or carry anything of its own request (credentials, a client certificate, a Unix socket),
/// gets its own. No network: the settings come from the session's planner.
final class TransferOptionsCacheTests: XCTestCase {
    private func options(_ session: SessionManager, _ url: String, timeout: TimeInterval = 60,
                         credential: (user: String, password: String)? = nil,
                         progress: Bool = false) -> AttemptOptions {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = timeout
        return session.planOptions(for: request, credential: credential, reportsProgress: progress,
                                   followsWithoutAsking: true)
    }

    func testThatTheSamePlainSettingsShareOneBox() {
        let session = SessionManager()
        let cache = AttemptOptionsCache()
        let first = cache.box(options(session, "http://127.0.0.1:1/a"))
        let second = cache.box(options(session, "http://127.0.0.1:1/b"))
        XCTAssertTrue(first === second)
    }

    func testThatDifferentSettingsGetTheirOwnBox() {
        let session = SessionManager()
        let cache = AttemptOptionsCache()
        let plain = cache.box(options(session, "http://127.0.0.1:1/a"))
        let slower = cache.box(options(session, "http://127.0.0.1:1/a", timeout: 5))
        XCTAssertFalse(plain === slower)
        XCTAssertEqual(slower.value.requestTimeout, 5)
        let progress = cache.box(options(session, "http://127.0.0.1:1/a", timeout: 5, progress: true))
        XCTAssertFalse(progress === slower)
        XCTAssertTrue(progress.value.reportsProgress)
        // The latest plain settings are the ones kept.
        XCTAssertTrue(cache.box(options(session, "http://127.0.0.1:1/a", timeout: 5, progress: true)) === progress)
    }

    func testThatCredentialsAreNeverShared() {
        let session = SessionManager()
        let cache = AttemptOptionsCache()
        let plain = cache.box(options(session, "http://127.0.0.1:1/a"))
        let first = cache.box(options(session, "http://127.0.0.1:1/a", credential: ("u", "p")))
        let second = cache.box(options(session, "http://127.0.0.1:1/a", credential: ("v", "q")))
        XCTAssertFalse(first === second)
        XCTAssertEqual(second.value.credential?.user, "v")
        XCTAssertFalse(first === plain)
        // A hop with credentials does not replace the kept plain settings.
        XCTAssertTrue(cache.box(options(session, "http://127.0.0.1:1/a")) === plain)
    }

    func testThatHostsWithDifferentTrustDoNotShare() {
        let session = SessionManager(serverTrustPolicyManager: ServerTrustPolicyManager(policies: [
            "pinned.test": .disableEvaluation,
        ]))
        let cache = AttemptOptionsCache()
        let pinned = cache.box(options(session, "https://pinned.test/a"))
        XCTAssertNotNil(pinned.value.trust)
        let other = cache.box(options(session, "https://other.test/a"))
        XCTAssertFalse(pinned === other)
        XCTAssertNil(other.value.trust)
        let plainHTTP = cache.box(options(session, "http://other.test/a"))
        XCTAssertTrue(plainHTTP === other, "no trust either way: the same settings")
    }
}

/// The plan's path: the kept box is found from what the hop decides, before the rest is built, and
/// it is the box the full options would have shared.
final class PlanOptionsBoxTests: XCTestCase {
    private func box(_ session: SessionManager, _ url: String, timeout: TimeInterval = 60,
                     credential: (user: String, password: String)? = nil) -> ImmutableBox<AttemptOptions> {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = timeout
        return session.planOptionsBox(for: .built(request), credential: credential, reportsProgress: false,
                                      followsWithoutAsking: true, timeLimits: RequestTimeLimits(),
                                      rateLimits: RequestRateLimits())
    }

    func testThatPlainHopsOfASessionShareTheBoxAndItHoldsTheFullOptions() {
        let session = SessionManager()
        let first = box(session, "http://127.0.0.1:1/a")
        XCTAssertTrue(box(session, "http://127.0.0.1:1/b") === first)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:1/a")!)
        request.timeoutInterval = 60
        let full = session.planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: true)
        XCTAssertTrue(AttemptOptionsCache.mayShare(first.value, with: full))
        XCTAssertEqual(first.value.maximumRedirects, full.maximumRedirects)
        XCTAssertEqual(first.value.defaultHeaders, full.defaultHeaders)
        XCTAssertTrue(first.value.sessionHeaderLines === full.sessionHeaderLines)
    }

    func testThatAHopThatDiffersOrCarriesCredentialsGetsItsOwnBox() {
        let session = SessionManager()
        let plain = box(session, "http://127.0.0.1:1/a")
        let slower = box(session, "http://127.0.0.1:1/a", timeout: 5)
        XCTAssertFalse(slower === plain)
        XCTAssertEqual(slower.value.requestTimeout, 5)
        let withCredential = box(session, "http://127.0.0.1:1/a", timeout: 5, credential: ("u", "p"))
        XCTAssertFalse(withCredential === slower)
        XCTAssertEqual(withCredential.value.credential?.user, "u")
        XCTAssertTrue(box(session, "http://127.0.0.1:1/c", timeout: 5) === slower, "a credential does not replace the kept box")
    }

    func testThatAnHTTPSHostWithItsOwnTrustIsNotServedAnotherHostsBox() {
        let session = SessionManager(serverTrustPolicyManager: ServerTrustPolicyManager(policies: [
            "pinned.test": .disableEvaluation,
        ]))
        let other = box(session, "https://other.test/a")
        XCTAssertNil(other.value.trust)
        let pinned = box(session, "https://pinned.test/a")
        XCTAssertFalse(pinned === other)
        XCTAssertNotNil(pinned.value.trust)
        XCTAssertTrue(box(session, "https://pinned.test/b") === pinned)
    }
}
