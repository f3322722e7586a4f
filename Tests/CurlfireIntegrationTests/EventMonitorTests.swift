import Curlfire
import Foundation
import Logging
import XCTest

/// The order of lifecycle events and notifications for successful, cancelled and retried requests.
final class EventMonitorTests: XCTestCase {
    /// Records event names in delivery order, and the threads they arrived on.
    final class RecordingMonitor: EventMonitor, @unchecked Sendable {
        let queue = DispatchQueue(label: "test.monitor")
        let events = Recorder<String>()
        let threads = Recorder<String>()
        private let lock = NSLock()
        private var waiters: [String: [XCTestExpectation]] = [:]
        private func note(_ name: String) {
            events.append(name)
            threads.append(Thread.current.name ?? "")
            lock.withLock { waiters.removeValue(forKey: name) ?? [] }.forEach { $0.fulfill() }
        }
        /// An expectation fulfilled when `name` is next delivered: the test waits for the event itself.
        func expectation(for name: String) -> XCTestExpectation {
            let expectation = XCTestExpectation(description: "event \(name)")
            lock.withLock { waiters[name, default: []].append(expectation) }
            return expectation
        }
        func request(_ request: any Request, didCreateInitialURLRequest urlRequest: URLRequest) { note("created") }
        func request(_ request: any Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) { note("adapted") }
        func request(_ request: any Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: CurlfireError) { note("adaptFailed") }
        func requestDidResume(_ request: any Request) { note("resumed") }
        func requestDidSuspend(_ request: any Request) { note("suspended") }
        func requestDidCancel(_ request: any Request) { note("cancelled") }
        func request(_ request: any Request, didGatherMetrics metrics: TransferMetrics) { note("metrics") }
        func request(_ request: any Request, didCompleteAttemptWith error: CurlfireError?) {
            note(error == nil ? "attempt" : "attemptFailed")
        }
        func requestIsRetrying(_ request: any Request) { note("retrying(\(request.retryCount))") }
        func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) { note("redirect") }
        func requestDidFinish(_ request: any Request) { note("finished") }
        func request<Value>(_ request: any Request, didParseResponse response: DataResponse<Value>) { note("parsed") }
        func request(_ request: any Request, didParseResponse response: DefaultDataResponse) { note("parsedDefault") }
        /// The events so far, after everything already queued was delivered.
        var delivered: [String] { queue.sync {}; return events.all }
    }

    func testThatASuccessfulRequestReportsEventsInOrderOffTheEngineThread() async throws {
        let monitor = RecordingMonitor()
        let session = SessionManager(configuration: .default, serverTrustPolicyManager: nil, eventMonitors: [monitor])
        let response = await session.request(try Live.httpbin("/get")).validate().serializingData().response
        XCTAssertNil(response.error)
        XCTAssertEqual(monitor.delivered, ["created", "resumed", "metrics", "attempt", "finished", "parsed"])
        XCTAssertFalse(monitor.threads.all.contains("curlfire-engine"))
    }

    /// One `DataTask` awaited again and again: its serializer runs once, the monitors see one parsed
    /// response, and every await gets that response (the same value and Timeline).
    func testThatADataTaskAwaitedManyTimesSerializesOnceAndIsParsedOnce() async throws {
        // Given: a serializer that counts its runs
        let monitor = RecordingMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        let runs = Recorder<Int>()
        let serializer = DataResponseSerializer<Int> { _, _, data, error in
            runs.append(1)
            if let error { return .failure(.responseSerializationFailed(reason: .customSerializationFailed(error: error))) }
            return .success(data?.count ?? -1)
        }
        let task = session.request(try Live.httpbin("/bytes/64")).validate().serializingResponse(using: serializer)
        // When: awaited once, then three more times
        let first = await task.response
        var later: [DataResponse<Int>] = []
        for _ in 0..<3 { later.append(await task.response) }
        // Then
        XCTAssertEqual(first.value, 64, first.debugDescription)
        XCTAssertEqual(runs.all.count, 1, "serialized once")
        for response in later {
            XCTAssertEqual(response.value, 64)
            XCTAssertEqual(response.response?.statusCode, 200)
            XCTAssertEqual(response.timeline.serializationCompletedTime, first.timeline.serializationCompletedTime)
            XCTAssertEqual(response.metrics?.totalDuration, first.metrics?.totalDuration)
        }
        XCTAssertEqual(monitor.delivered.filter { $0 == "parsed" }.count, 1, "the monitors saw one parsed response")
    }

    func testThatACancelledRequestReportsTheCancellation() async throws {
        let monitor = RecordingMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        // Cancelled mid-transfer: after the first body byte of a 3-second drip has arrived.
        let request = session.request(try Live.httpbin("/drip?duration=3&numbytes=3&delay=0"))
        let firstByte = FirstByte()
        request.downloadProgress { firstByte.seen($0) }
        let waiter = ResponseWaiter<DefaultDataResponse>()
        request.response { waiter.fulfil($0) }
        await fulfillment(of: [firstByte.expectation], timeout: 5)
        request.cancel()
        _ = await waiter.value
        XCTAssertEqual(monitor.delivered, ["created", "resumed", "cancelled", "metrics", "attemptFailed", "finished",
                                           "parsedDefault"])
    }

    func testThatARetriedRequestReportsEachAttemptAndAdaptation() async throws {
        let monitor = RecordingMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        let base = try Live.httpbin("")
        let adapter = RetryTests.FlakyAdapter(base: base, paths: ["/status/503", "/get"])
        // The monitor reads `retryCount` on its own queue, live: the retry's delay (0.5 s, no jitter) must outlast that
        // queue's hop even on a loaded machine, or the count already reads 1 (it did with a 10 ms delay).
        let response = await session.request(base + "/anything").adapt(using: adapter)
            .retry(using: RetryPolicy(exponentialBackoffScale: 0.5, jitter: .none)).validate().serializingData().response
        XCTAssertNil(response.error)
        XCTAssertEqual(monitor.delivered, ["created", "resumed", "adapted", "metrics", "attempt", "retrying(0)",
                                           "adapted", "metrics", "attempt", "finished", "parsed"])
    }

    func testThatSuspendAndResumeAreReportedAndNotificationsPosted() async throws {
        let monitor = RecordingMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        let names = Recorder<String>()
        let carriesRequest = Recorder<Bool>()
        let marker = Live.marker()
        let completed = XCTestExpectation(description: "didComplete posted")
        var observers: [NSObjectProtocol] = []
        for name in [Notification.Name.Task.DidResume, .Task.DidSuspend, .Task.DidCancel, .Task.DidComplete] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let request = note.userInfo?[Notification.Key.Task] as? any Request,
                      request.request?.url?.query?.contains(marker) == true else { return }
                names.append(note.name.rawValue.components(separatedBy: ".").last ?? "")
                carriesRequest.append(true)
                if note.name == .Task.DidComplete { completed.fulfill() }
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let request = session.request(try Live.httpbin("/drip?duration=1&numbytes=4&delay=0&m=\(marker)"))
        let firstByte = FirstByte()
        request.downloadProgress { firstByte.seen($0) }
        let waiter = ResponseWaiter<DefaultDataResponse>()
        request.response { waiter.fulfil($0) }
        // Suspended mid-transfer (a body byte has arrived), resumed once the suspension was delivered.
        await fulfillment(of: [firstByte.expectation], timeout: 5)
        let suspended = monitor.expectation(for: "suspended")
        request.suspend()
        await fulfillment(of: [suspended], timeout: 5)
        request.resume()
        _ = await waiter.value
        XCTAssertEqual(monitor.delivered, ["created", "resumed", "suspended", "resumed", "metrics", "attempt",
                                           "finished", "parsedDefault"])
        // Notifications are posted off the monitor queue: wait for the last one itself.
        await fulfillment(of: [completed], timeout: 5)
        XCTAssertEqual(names.all, ["didResume", "didSuspend", "didResume", "didComplete"])
    }

    func testThatASessionThatOptedOutPostsNoNotificationsButStillReportsToMonitors() async throws {
        let monitor = RecordingMonitor()
        var configuration = SessionConfiguration.default
        configuration.postsTaskNotifications = false
        let quiet = SessionManager(configuration: configuration, serverTrustPolicyManager: nil, eventMonitors: [monitor])
        let (quietMarker, loudMarker) = (Live.marker(), Live.marker())
        let seen = Recorder<String>()
        let loudCompleted = XCTestExpectation(description: "the default session's didComplete posted")
        var observers: [NSObjectProtocol] = []
        for name in [Notification.Name.Task.DidResume, .Task.DidComplete] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let request = note.userInfo?[Notification.Key.Task] as? any Request,
                      let query = request.request?.url?.query else { return }
                if query.contains(quietMarker) { seen.append(note.name.rawValue) }
                if query.contains(loudMarker), note.name == .Task.DidComplete { loudCompleted.fulfill() }
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        _ = await quiet.request(try Live.httpbin("/get?m=\(quietMarker)")).serializingData().response
        // Notifications are posted in order from one queue: once a later request's last one has
        // arrived, any of the first request's would have arrived before it.
        _ = await SessionManager().request(try Live.httpbin("/get?m=\(loudMarker)")).serializingData().response
        await fulfillment(of: [loudCompleted], timeout: 5)
        XCTAssertEqual(seen.all, [], "no notification for the session that opted out")
        XCTAssertEqual(monitor.delivered, ["created", "resumed", "metrics", "attempt", "finished", "parsed"])
    }

    func testThatTheLoggingMonitorWritesThroughSwiftLog() async throws {
        let lines = Recorder<String>()
        var logger = Logger(label: "test.curlfire") { _ in CollectingLogHandler(lines: lines) }
        logger.logLevel = .debug
        let monitor = LoggingEventMonitor(logger: logger)
        let session = SessionManager(eventMonitors: [monitor])
        _ = await session.request(try Live.httpbin("/status/418")).serializingData().response
        monitor.queue.sync {}
        let all = lines.all
        XCTAssertTrue(all.contains { $0.contains("resumed") }, "\(all)")
        XCTAssertTrue(all.contains { $0.contains("finished (418)") }, "\(all)")
    }
}

/// Fulfils its expectation when a progress report first counts a received byte.
final class FirstByte: @unchecked Sendable {
    let expectation = XCTestExpectation(description: "first body byte received")
    private let lock = NSLock()
    private var done = false
    func seen(_ progress: Progress) {
        guard progress.completedUnitCount > 0 else { return }
        let first = lock.withLock { () -> Bool in defer { done = true }; return !done }
        if first { expectation.fulfill() }
    }
}

/// A swift-log handler that keeps every message.
struct CollectingLogHandler: LogHandler {
    let lines: Recorder<String>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.append("\(event.level): \(event.message)")
    }
}
