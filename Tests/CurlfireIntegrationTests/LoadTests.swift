import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// 10,000 GETs against nginx with 200 in flight on one session limited to 50 connections: no failure,
/// every body right, at most 50 connections seen *by the server*, and the session's descriptors and
/// threads gone once it is released.
final class LoadTests: XCTestCase {
    private static let total = 10_000
    private static let window = 200
    /// `httpMaximumConnectionsPerHost`: below the window, so the limit, not the window, bounds the
    /// connections nginx sees (counted from its access log's `conn=$connection`).
    private static let connectionLimit = 50
    /// Computed, not a stored static: LeakSanitizer cannot follow a global `Data` (its storage
    /// pointer is kept with tag bits) and reports it as a direct leak at exit.
    private static var expectedBody: Data { Data("Hello, Curlfire!\n".utf8) }

    /// Counts requests in flight and remembers the peak. An `NSLock`, not `Mutex`: ThreadSanitizer
    /// does not see the futex under `Synchronization.Mutex` and reports its accesses as races.
    private final class InFlight: @unchecked Sendable {
        private let lock = NSLock()
        private var current = 0
        private var peak_ = 0
        func enter() { lock.withLock { current += 1; peak_ = max(peak_, current) } }
        func leave() { lock.withLock { current -= 1 } }
        var peak: Int { lock.withLock { peak_ } }
    }

    /// Runs the load on a session of its own, released when this returns.
    /// Returns the failures (descriptions), the peak in flight, and the wall time.
    private func runLoad(url: URL) async -> (failures: [String], peak: Int, seconds: TimeInterval) {
        var configuration = SessionConfiguration()
        configuration.httpMaximumConnectionsPerHost = Self.connectionLimit
        let session = SessionManager(configuration: configuration)
        let inFlight = InFlight()
        let started = Date()
        let failures = await withTaskGroup(of: String?.self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    inFlight.enter()
                    let response = await session.request(url).validate().serializingData().response
                    inFlight.leave()
                    if response.value == Self.expectedBody { return nil }
                    return "#\(index): \(response.debugDescription)"
                }
            }
            while next < Self.window { add() }
            var failures: [String] = []
            for await failure in group {
                if let failure { failures.append(failure) }
                if next < Self.total { add() }
            }
            return failures
        }
        return (failures, inFlight.peak, Date().timeIntervalSince(started))
    }

    func testThatTenThousandRequestsWithTwoHundredInFlightAllSucceedAndLeaveNothingBehind() async throws {
        let servers = try TestServers.shared()
        let base = try XCTUnwrap(servers.nginxHTTP, "nginx is required")
        let marker = Live.marker()
        let warmURL = base.appendingPathComponent("small.txt")
        let url = try XCTUnwrap(URL(string: warmURL.absoluteString + "?\(marker)"))
        let enginesBefore = ResourceSample.now().engineThreads
        // Warm-up: a session of its own, released, so lazily created process-wide state is in the baseline.
        do {
            let warm = await SessionManager(configuration: SessionConfiguration()).request(warmURL).serializingData().response
            XCTAssertEqual(warm.value, Self.expectedBody, warm.debugDescription)
        }
        // Other tests' sessions (SessionManager.default) may hold engine threads: compare with the baseline.
        XCTAssertTrue(ProcessResources.settle(timeout: 5) { ResourceSample.now().engineThreads <= enginesBefore })
        let before = ResourceSample.now()

        let (failures, peak, seconds) = await runLoad(url: url)
        let during = ResourceSample.now()
        print(String(format: "LoadTests: %d requests, %d in flight, %.2f s, %.0f req/s; before %@, right after %@",
                     Self.total, peak, seconds, Double(Self.total) / seconds, before.description, during.description))
        XCTAssertEqual(failures.count, 0, failures.prefix(3).joined(separator: "\n"))
        XCTAssertEqual(peak, Self.window, "the window was filled")
        // The server's view: every request arrived, on no more connections than the limit allows.
        // nginx logs a request after sending its response: wait (bounded) for the last lines.
        var lines: [String] = []
        _ = ProcessResources.settle(timeout: 5) {
            lines = servers.accessLogLines("nginx").filter { $0.contains(marker) }
            return lines.count >= Self.total
        }
        XCTAssertEqual(lines.count, Self.total, "every request reached nginx")
        // Each connection's span, from its first to its last logged request (nginx's `conn=` serial
        // and `t=` completion time): libcurl may close an idle connection and open another later
        // (churn), so the bound is on connections open at the same time, not on distinct ones.
        var spans: [Substring: (first: Double, last: Double)] = [:]
        for line in lines {
            guard let connRange = line.range(of: " conn="), let timeRange = line.range(of: " t=") else { continue }
            let connection = line[connRange.upperBound..<timeRange.lowerBound]
            guard let time = Double(line[timeRange.upperBound...]) else { continue }
            let span = spans[connection] ?? (time, time)
            spans[connection] = (min(span.first, time), max(span.last, time))
        }
        let concurrent = Self.maximumOverlap(Array(spans.values))
        print("LoadTests: nginx saw \(lines.count) requests on \(spans.count) connections, at most \(concurrent) at once")
        XCTAssertEqual(spans.count > 0, true, "nginx logs conn= and t= for every request")
        XCTAssertLessThanOrEqual(concurrent, Self.connectionLimit,
                                 "httpMaximumConnectionsPerHost = \(Self.connectionLimit) must bound the connections open at once")
        XCTAssertGreaterThan(concurrent, 1, "200 in flight are spread over several connections")

        // The session is released: its engine thread ends and its connections close.
        let engineGone = ProcessResources.settle(timeout: 10) { ResourceSample.now().engineThreads <= before.engineThreads }
        let fdsBack = ProcessResources.settle(timeout: 10) { ResourceSample.now().openFileDescriptors <= before.openFileDescriptors }
        // Dispatch's idle worker threads time out on their own; give them a while.
        let threadsBack = ProcessResources.settle(timeout: 30) { ResourceSample.now().threads <= before.threads }
        let after = ResourceSample.now()
        print("LoadTests: after release \(after)")
        XCTAssertTrue(engineGone, "no engine thread left behind: \(after)")
        XCTAssertTrue(fdsBack, "descriptors back to \(before.openFileDescriptors): \(after)")
        XCTAssertTrue(threadsBack, "threads back to \(before.threads): \(after)")
    }

    /// A progress closure that captures its own request (the usual way to cancel at some point) must
    /// not keep the transfer — and so the session and its engine thread — alive once it finished.
    func testThatAProgressClosureCapturingItsRequestDoesNotKeepTheSessionAlive() async throws {
        let base = try XCTUnwrap(TestServers.shared().nginxHTTP, "nginx is required")
        weak var released: SessionManager?
        let engines = ResourceSample.now().engineThreads
        do {
            let session = SessionManager(configuration: SessionConfiguration())
            released = session
            let download = session.download(base.appendingPathComponent("1k.bin"))
            let file = await download.downloadProgress { _ in download.cancel() }.serializingDownloadedFileURL().response
            file.fileURL.map { try? FileManager.default.removeItem(at: $0) }
            let upload = session.upload(Data(count: 100_000), to: base.appendingPathComponent("discard"))
            let uploaded = await upload.uploadProgress { _ in _ = upload.response }.serializingData().response
            XCTAssertEqual(uploaded.response?.statusCode, 204, uploaded.debugDescription)
        }
        XCTAssertTrue(ProcessResources.settle(timeout: 5) { released == nil }, "the session was not released")
        XCTAssertTrue(ProcessResources.settle(timeout: 5) { ResourceSample.now().engineThreads <= engines },
                      "its engine thread ended")
    }
}

extension LoadTests {
    /// The most intervals that overlap at one instant (a sweep over their starts and ends; an end
    /// at the same instant as a start counts as before it).
    static func maximumOverlap(_ spans: [(first: Double, last: Double)]) -> Int {
        var events: [(time: Double, change: Int)] = []
        for span in spans {
            events.append((span.first, 1))
            events.append((span.last, -1))
        }
        events.sort { lhs, rhs in lhs.time != rhs.time ? lhs.time < rhs.time : lhs.change < rhs.change }
        var open = 0
        var most = 0
        for (_, change) in events {
            open += change
            most = max(most, open)
        }
        return most
    }

    func testTheOverlapSweep() {
        XCTAssertEqual(Self.maximumOverlap([]), 0)
        XCTAssertEqual(Self.maximumOverlap([(0, 1), (2, 3)]), 1, "a connection replaced by another: one at a time")
        XCTAssertEqual(Self.maximumOverlap([(0, 2), (1, 3), (1.5, 1.6)]), 3)
        XCTAssertEqual(Self.maximumOverlap([(0, 1), (1, 2)]), 1, "one ends as the next starts")
    }
}
