import Curlfire
import Foundation
import XCTest

/// Open code the session calls — a trust policy manager's override, event monitor closures — may
/// use the session again (read its settings, make requests of its own) and be changed while requests
/// run, without deadlocking or racing it; and `suspend()`/`resume()` report nothing once a request is over.
final class SessionReentrancyTests: XCTestCase {
    /// Reads the session's adapter and retrier when asked for a policy and, for the first host it is
    /// asked about in `nestedRequestHosts`, makes a request of its own on the same session and waits for it.
    final class ReentrantPolicyManager: ServerTrustPolicyManager, @unchecked Sendable {
        // Guarded by `lock`; `session` is set once before the first request.
        private let lock = NSLock()
        private weak var _session: SessionManager?
        private var asked: [String] = []
        private var nested: [Int?] = []
        private let nestedURL: String?
        private let nestedHosts: Set<String>

        init(nestedURL: String? = nil, nestedRequestHosts: Set<String> = []) {
            self.nestedURL = nestedURL
            self.nestedHosts = nestedRequestHosts
            super.init(policies: [:])
        }

        var session: SessionManager? {
            get { lock.withLock { _session } }
            set { lock.withLock { _session = newValue } }
        }
        var askedHosts: [String] { lock.withLock { asked } }
        /// The status of each nested request (`nil`: it did not complete within 10 s).
        var nestedStatuses: [Int?] { lock.withLock { nested } }

        override func serverTrustPolicy(forHost host: String) -> ServerTrustPolicy? {
            lock.withLock { asked.append(host) }
            guard let session else { return nil }
            _ = session.adapter // takes the session's lock
            _ = session.retrier
            if nestedHosts.contains(host), let nestedURL {
                let done = DispatchSemaphore(value: 0)
                let status = LockedStatus()
                session.request(nestedURL).response { response in
                    status.value = response.response?.statusCode
                    done.signal()
                }
                let completed = done.wait(timeout: .now() + 10) == .success
                lock.withLock { nested.append(completed ? status.value : nil) }
            }
            return nil // default evaluation (with the session's trusted roots)
        }
    }

    final class LockedStatus: @unchecked Sendable { // guarded by `lock`
        private let lock = NSLock()
        private var _value: Int?
        var value: Int? {
            get { lock.withLock { _value } }
            set { lock.withLock { _value = newValue } }
        }
    }

    private func session(_ manager: ReentrantPolicyManager) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: Live.servers().pkiFile("root-ca.pem"))]
        let session = SessionManager(configuration: configuration, serverTrustPolicyManager: manager)
        manager.session = session
        return session
    }

    /// The request's status, or `nil` if it did not complete within `timeout` (a deadlocked session).
    private func status(of request: DataRequest, timeout: TimeInterval = 30) -> Int? {
        let done = expectation(description: "response")
        let status = LockedStatus()
        request.response { response in
            status.value = response.response?.statusCode
            done.fulfill()
        }
        return XCTWaiter().wait(for: [done], timeout: timeout) == .completed ? status.value : nil
    }

    func testThatATrustPolicyOverrideMayReadTheSessionsSettings() throws {
        let manager = ReentrantPolicyManager()
        let session = try session(manager)
        let url = try Live.servers().https("valid").absoluteString + "/get"
        XCTAssertEqual(status(of: session.request(url)), 200, "the session deadlocked on its own lock")
        XCTAssertEqual(manager.askedHosts, ["localhost"])
    }

    func testThatATrustPolicyOverrideMayWaitForARequestOfItsOwnWhenARedirectHopAsksIt() throws {
        // The first hop is plain HTTP; the redirect hop to HTTPS is planned after the first attempt
        // ended on the engine thread, where a blocking override would stop every transfer.
        let https = try Live.servers().https("valid").absoluteString + "/get"
        let manager = ReentrantPolicyManager(nestedURL: try Live.httpbin("/get"), nestedRequestHosts: ["localhost"])
        let session = try session(manager)
        let redirect = try Live.httpbin("/redirect-to?url=" + https.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        XCTAssertEqual(status(of: session.request(redirect)), 200)
        XCTAssertEqual(manager.askedHosts, ["localhost"])
        XCTAssertEqual(manager.nestedStatuses, [200], "the override's own request could not run")
    }

    /// Sets and clears the monitor's closures over and over until `stop` has a value.
    private static func churn(_ monitor: ClosureEventMonitor, finished: Recorder<Int>, until stop: LockedStatus) {
        var round = 0
        while stop.value == nil {
            let current = round
            let onFinish: @Sendable (any Request) -> Void = { _ in finished.append(current) }
            monitor.requestDidFinish = onFinish
            if current.isMultiple(of: 2) {
                monitor.requestDidResume = nil
            } else {
                monitor.requestDidResume = { _ in }
            }
            monitor.requestDidGatherMetrics = { _, _ in }
            round += 1
        }
    }

    func testThatClosureEventMonitorClosuresMayBeSetWhileRequestsRun() async throws {
        let monitor = ClosureEventMonitor()
        let finished = Recorder<Int>()
        let session = SessionManager(eventMonitors: [monitor])
        let url = try Live.httpbin("/get")
        let stop = LockedStatus()
        // Another thread sets and clears closures over and over while 40 requests run.
        let setterEnded = DispatchSemaphore(value: 0)
        let setter = Thread {
            Self.churn(monitor, finished: finished, until: stop)
            setterEnded.signal()
        }
        setter.start()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask { _ = await session.request(url).serializingData().response }
            }
        }
        stop.value = 1
        // The setter may be inside a round when it is told to stop: wait until it has left the loop.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                setterEnded.wait()
                done.resume()
            }
        }
        monitor.requestDidFinish = { _ in finished.append(-1) }
        _ = await session.request(url).serializingData().response
        monitor.queue.sync {}
        XCTAssertTrue(finished.all.contains(-1), "the closure set last is the one called")
    }

    func testThatSuspendAndResumeOfAFinishedRequestReportNothing() async throws {
        let suspends = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidSuspend = { _ in suspends.append("monitor.suspend") }
        monitor.requestDidResume = { _ in suspends.append("monitor.resume") }
        let session = SessionManager(eventMonitors: [monitor])
        let marker = Live.marker()
        var observers: [NSObjectProtocol] = []
        let completed = XCTestExpectation(description: "didComplete posted")
        for name in [Notification.Name.Task.DidResume, .Task.DidSuspend, .Task.DidComplete] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let request = note.userInfo?[Notification.Key.Task] as? any Request,
                      request.request?.url?.query?.contains(marker) == true else { return }
                if note.name == .Task.DidComplete { return completed.fulfill() }
                suspends.append(note.name.rawValue)
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let request = session.request(try Live.httpbin("/get?m=\(marker)"))
        let response = await request.serializingData().response
        XCTAssertNil(response.error)
        monitor.queue.sync {}
        // Notifications are posted in order, off the monitor queue: once didComplete has been, the
        // start's own didResume has been too.
        await fulfillment(of: [completed], timeout: 5)
        suspends.removeAll() // the start's own didResume
        request.suspend()
        request.resume()
        request.suspend()
        monitor.queue.sync {}
        try await Task.sleep(for: .milliseconds(200)) // notifications are posted off the monitor queue
        XCTAssertEqual(suspends.all, [], "suspend()/resume() after the end must not be reported")
        XCTAssertEqual(request.state, .finished)
    }
}
