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
        private func note(_ name: String) {
            events.append(name)
            threads.append(Thread.current.name ?? "")
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

    func testThatACancelledRequestReportsTheCancellation() async throws {
        let monitor = RecordingMonitor()
        let session = SessionManager(eventMonitors: [monitor])
        let request = session.request(try Live.httpbin("/delay/3"))
        let waiter = ResponseWaiter<DefaultDataResponse>()
        request.response { waiter.fulfil($0) }
        try await Task.sleep(nanoseconds: 200_000_000)
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
        let response = await session.request(base + "/anything").adapt(using: adapter)
            .retry(using: RetryPolicy(exponentialBackoffScale: 0.01)).validate().serializingData().response
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
        var observers: [NSObjectProtocol] = []
        for name in [Notification.Name.Task.DidResume, .Task.DidSuspend, .Task.DidCancel, .Task.DidComplete] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let request = note.userInfo?[Notification.Key.Task] as? any Request,
                      request.request?.url?.query?.contains(marker) == true else { return }
                names.append(note.name.rawValue.components(separatedBy: ".").last ?? "")
                carriesRequest.append(true)
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let request = session.request(try Live.httpbin("/drip?duration=1&numbytes=4&m=\(marker)"))
        let waiter = ResponseWaiter<DefaultDataResponse>()
        request.response { waiter.fulfil($0) }
        try await Task.sleep(nanoseconds: 100_000_000)
        request.suspend()
        try await Task.sleep(nanoseconds: 100_000_000)
        request.resume()
        _ = await waiter.value
        XCTAssertEqual(monitor.delivered, ["created", "resumed", "suspended", "resumed", "metrics", "attempt",
                                           "finished", "parsedDefault"])
        _ = await withCheckedContinuation { continuation in
            DispatchQueue(label: "flush").asyncAfter(deadline: .now() + 0.2) { continuation.resume(returning: ()) }
        }
        XCTAssertEqual(names.all, ["didResume", "didSuspend", "didResume", "didComplete"])
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
