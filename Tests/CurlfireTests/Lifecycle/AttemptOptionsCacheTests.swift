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
