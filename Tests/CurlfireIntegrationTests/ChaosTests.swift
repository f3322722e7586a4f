import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// Faults under load (`make chaos`, docs/Reliability.md): N requests with 200 in flight on one
/// session, about one in ten sent at random to a fault endpoint — a reset, a stall, a short body,
/// bad chunking, a TLS failure (scripts/fault-server.py) or a GOAWAY (scripts/h2-fault-server.py) —
/// the rest to nginx (HTTP/1.1 and HTTP/2) and httpbin with bodies checked byte for byte. Every
/// request must end exactly once, within its timeout, with a verified body or the typed error its
/// fault calls for (a GOAWAY'd stream is replayed and succeeds); afterwards descriptors, threads
/// and resident memory return to the baseline. Runs with CURLFIRE_CHAOS_REQUESTS=N (`make chaos`:
/// 20,000; `make chaos-ci`: 2,000); an allow-listed skip otherwise.
final class ChaosTests: XCTestCase {
    private static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let window = 200
    private static let idleTimeout: TimeInterval = 2
    private static let resourceTimeout: TimeInterval = 10
    /// How late after `resourceTimeout` a request may end (a loaded 2-core machine).
    private static let lateness: TimeInterval = 3

    /// What a request is sent to; the first four must succeed, the rest are faults.
    enum Kind: String, CaseIterable, Sendable {
        case nginxHTTP = "nginx http/1.1 small.txt"
        case nginxHTTP2 = "nginx h2 1k.bin"
        case httpbinBase64 = "httpbin /base64"
        case httpbinPost = "httpbin POST /anything"
        case reset = "fault: reset"
        case stall = "fault: stall"
        case shortBody = "fault: short body"
        case badChunked = "fault: bad chunking"
        case tlsFailure = "fault: TLS failure"
        case goaway = "fault: GOAWAY"

        var isFault: Bool { rawValue.hasPrefix("fault") }

        /// Per mille: 100 for the faults together.
        var weight: Int {
            switch self {
            case .nginxHTTP: return 300
            case .nginxHTTP2: return 250
            case .httpbinBase64, .httpbinPost: return 175
            case .reset, .stall, .shortBody, .badChunked: return 17
            case .tlsFailure, .goaway: return 16
            }
        }

        /// The typed errors a fault may end with (a GOAWAY must succeed: its stream is replayed).
        var expectedErrors: Set<TransportErrorCode> {
            switch self {
            case .reset, .shortBody, .badChunked: return [.connectionLost]
            case .stall: return [.timedOut]
            case .tlsFailure: return [.connectionLost, .tlsHandshakeFailed]
            default: return []
            }
        }
    }

    /// SplitMix64: a seeded, reproducible mix (the seed is printed).
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One planned request: where it goes and what it must return when it is not a fault.
    private struct Planned: Sendable {
        let kind: Kind
        let url: String
        let method: HTTPMethod
        let body: Data?
        let check: @Sendable (Data) -> Bool
    }

    /// Every request's deliveries and outcome, under an NSLock (ThreadSanitizer sees it).
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var deliveries: [Int]
        private var outcomes: [String: Int] = [:]
        private var unexpected: [String] = []
        private var slowest: [Kind: TimeInterval] = [:]
        private var late: [String] = []
        init(count: Int) { deliveries = Array(repeating: 0, count: count) }

        /// Records a delivery; `true` the first time for `index`.
        func deliver(_ index: Int) -> Bool {
            lock.withLock { deliveries[index] += 1; return deliveries[index] == 1 }
        }

        func record(_ kind: Kind, outcome: String, expected: Bool, elapsed: TimeInterval, detail: @autoclosure () -> String) {
            lock.withLock {
                outcomes["\(kind.rawValue) → \(outcome)", default: 0] += 1
                if !expected, unexpected.count < 50 { unexpected.append("\(kind.rawValue): \(detail())") }
                if !expected, unexpected.count >= 50 { outcomes["unexpected (not listed)", default: 0] += 1 }
                slowest[kind] = max(slowest[kind] ?? 0, elapsed)
                if elapsed > ChaosTests.resourceTimeout + ChaosTests.lateness {
                    late.append("\(kind.rawValue) after \(String(format: "%.2f", elapsed)) s")
                }
            }
        }

        var summary: (outcomes: [String: Int], unexpected: [String], slowest: [Kind: TimeInterval], late: [String]) {
            lock.withLock { (outcomes, unexpected, slowest, late) }
        }
    }

    private var total = 0

    override func setUpWithError() throws {
        guard let value = ProcessInfo.processInfo.environment["CURLFIRE_CHAOS_REQUESTS"], let count = Int(value), count > 0 else {
            throw XCTSkip("faults under load: runs with make chaos / make chaos-ci (CURLFIRE_CHAOS_REQUESTS=N)")
        }
        total = count
    }

    /// Starts scripts/h2-fault-server.py for this test, logging to `log`; returns its TLS port.
    private func startH2FaultServer(_ servers: TestServerSet, log: URL) throws -> Int {
        let python = Self.repositoryRoot.appendingPathComponent(".venv/bin/python").path
        let started = try BackgroundProcess.start([
            python, Self.repositoryRoot.appendingPathComponent("scripts/h2-fault-server.py").path,
            "--log", log.path, "--cert", servers.pkiFile("leaf-chain.pem").path, "--key", servers.pkiFile("leaf.key").path,
            "--parent-pid", String(getpid()),
        ])
        addTeardownBlock {
            kill(started.pid, SIGTERM)
            try? FileManager.default.removeItem(at: log)
        }
        guard let ports = try? JSONSerialization.jsonObject(with: Data(started.firstLine.utf8)) as? [String: Int],
              let h2 = ports["h2"] else {
            throw TestServerError("h2-fault-server.py printed \(started.firstLine)")
        }
        return h2
    }

    /// The plan of request `index`, drawn from `generator`.
    private func plan(_ index: Int, kind: Kind, servers: TestServerSet, faults: FaultServer, h2Port: Int,
                      files: (small: Data, oneK: Data), run: String, generator: inout SeededGenerator) throws -> Planned {
        let nginxHTTP = try XCTUnwrap(servers.nginxHTTP, "nginx is required").absoluteString
        let nginxHTTPS = try XCTUnwrap(servers.nginxHTTPS, "nginx is required").absoluteString
        let tag = "chaos=\(run)-\(index)"
        switch kind {
        case .nginxHTTP:
            return Planned(kind: kind, url: "\(nginxHTTP)/small.txt?\(tag)", method: .get, body: nil) { $0 == files.small }
        case .nginxHTTP2:
            return Planned(kind: kind, url: "\(nginxHTTPS)/1k.bin?\(tag)", method: .get, body: nil) { $0 == files.oneK }
        case .httpbinBase64:
            let token = Data((0..<Int.random(in: 16...512, using: &generator)).map { _ in UInt8.random(in: 0x21...0x7e, using: &generator) })
            let encoded = token.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            return Planned(kind: kind, url: servers.httpbin.absoluteString + "/base64/\(encoded)?\(tag)", method: .get, body: nil) {
                $0 == token
            }
        case .httpbinPost:
            let text = String((0..<Int.random(in: 1...4096, using: &generator)).map { _ in
                Character(Unicode.Scalar(UInt8.random(in: 0x61...0x7a, using: &generator)))
            })
            return Planned(kind: kind, url: servers.httpbin.absoluteString + "/anything?\(tag)", method: .post,
                           body: Data(text.utf8)) { data in
                ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["data"] as? String == text
            }
        case .reset:
            let route = Bool.random(using: &generator) ? "/reset-before-status" : "/reset-mid-body"
            return Planned(kind: kind, url: faults.url("\(route)?\(tag)"), method: .get, body: nil) { _ in false }
        case .stall:
            return Planned(kind: kind, url: faults.url("/stall?\(tag)"), method: .get, body: nil) { _ in false }
        case .shortBody:
            return Planned(kind: kind, url: faults.url("/short-body?\(tag)"), method: .get, body: nil) { _ in false }
        case .badChunked:
            return Planned(kind: kind, url: faults.url("/bad-chunked?\(tag)"), method: .get, body: nil) { _ in false }
        case .tlsFailure:
            return Planned(kind: kind, url: faults.https.absoluteString + "/ok?\(tag)", method: .get, body: nil) { _ in false }
        case .goaway:
            // A GOAWAY after every stream on a connection: the streams in flight above it were
            // never processed and must succeed on a new connection.
            let method: HTTPMethod = Bool.random(using: &generator) ? .get : .post
            return Planned(kind: kind, url: "https://localhost:\(h2Port)/goaway-after/1/\(run)/\(index)", method: method,
                           body: nil) { $0 == Data("ok".utf8) }
        }
    }

    private static func pickKind(_ generator: inout SeededGenerator) -> Kind {
        var roll = Int.random(in: 0..<1000, using: &generator)
        for kind in Kind.allCases {
            if roll < kind.weight { return kind }
            roll -= kind.weight
        }
        return .nginxHTTP
    }

    private func makeSession(_ servers: TestServerSet) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.trustedRootCertificates = [try Certificate(contentsOf: servers.pkiFile("root-ca.pem"))]
        configuration.timeoutIntervalForRequest = Self.idleTimeout
        configuration.timeoutIntervalForResource = Self.resourceTimeout
        // No request waits for a connection behind stalled ones (6 by default): each fault ends by its
        // own cause, not by the resource timeout while queued.
        configuration.httpMaximumConnectionsPerHost = Self.window
        return SessionManager(configuration: configuration)
    }

    func testThatEveryRequestEndsExactlyOnceUnderFaultsAndLoad() throws {
        let servers = try TestServers.shared()
        let faults = try FaultServer.shared()
        let h2Log = FileManager.default.temporaryDirectory.appendingPathComponent("chaos-h2-\(UUID().uuidString).log")
        let h2Port = try startH2FaultServer(servers, log: h2Log)
        let www = try XCTUnwrap(servers.largeFile, "nginx is required").deletingLastPathComponent()
        let files = (small: try Data(contentsOf: www.appendingPathComponent("small.txt")),
                     oneK: try Data(contentsOf: www.appendingPathComponent("1k.bin")))
        let seed = UInt64(ProcessInfo.processInfo.environment["CURLFIRE_CHAOS_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(state: seed)
        let run = Live.marker()
        let enginesBefore = ResourceSample.now().engineThreads

        // Warm-up: one request of each kind on a session of its own, released, so that process-wide
        // state created on first use (TLS, resolver, dispatch's threads) is in the baseline.
        do {
            let warm = try makeSession(servers)
            for (index, kind) in Kind.allCases.enumerated() {
                let planned = try plan(index, kind: kind, servers: servers, faults: faults, h2Port: h2Port, files: files,
                                       run: run + "warm", generator: &generator)
                let done = expectation(description: kind.rawValue)
                warm.request(planned.url, method: planned.method).responseData(queue: .global()) { _ in done.fulfill() }
                wait(for: [done], timeout: Self.resourceTimeout + Self.lateness)
            }
        }
        XCTAssertTrue(ProcessResources.settle(timeout: 10) { ResourceSample.now().engineThreads <= enginesBefore })
        let before = ResourceSample.now()

        let tally = Tally(count: total)
        let window = DispatchSemaphore(value: Self.window)
        let group = DispatchGroup()
        let handlerQueue = DispatchQueue(label: "chaos-handlers", attributes: .concurrent)
        var planned = [Kind: Int]()
        let started = Date()
        var peak = before
        do {
            let session = try makeSession(servers)
            for index in 0..<total {
                let request = try plan(index, kind: Self.pickKind(&generator), servers: servers, faults: faults, h2Port: h2Port,
                                       files: files, run: run, generator: &generator)
                planned[request.kind, default: 0] += 1
                window.wait()
                group.enter()
                let sent = Date()
                let handler: @Sendable (DataResponse<Data>) -> Void = { response in
                    let elapsed = Date().timeIntervalSince(sent)
                    guard tally.deliver(index) else { return } // a second delivery: counted, reported below
                    defer { window.signal(); group.leave() }
                    switch response.result {
                    case let .success(data):
                        let ok = request.check(data)
                        tally.record(request.kind, outcome: ok ? "ok" : "wrong body", expected: ok, elapsed: elapsed,
                                     detail: "#\(index) body of \(data.count) bytes differs")
                    case let .failure(error):
                        let code = error.transportErrorCode
                        let name = code.map { "\($0)" } ?? "\(error)"
                        let expected = code.map { request.kind.expectedErrors.contains($0) } ?? false
                        tally.record(request.kind, outcome: name, expected: expected, elapsed: elapsed,
                                     detail: "#\(index) \(request.method.rawValue) \(request.url) after \(String(format: "%.2f", elapsed)) s: \(error)")
                    }
                }
                if let body = request.body {
                    session.upload(body, to: request.url, method: request.method, headers: ["Content-Type": "text/plain"])
                        .validate().responseData(queue: handlerQueue, completionHandler: handler)
                } else {
                    session.request(request.url, method: request.method).validate()
                        .responseData(queue: handlerQueue, completionHandler: handler)
                }
                if index % 1000 == 999 {
                    let sample = ResourceSample.now()
                    if sample.residentBytes > peak.residentBytes || sample.openFileDescriptors > peak.openFileDescriptors { peak = sample }
                }
            }
            let finished = group.wait(timeout: .now() + Self.resourceTimeout + 30)
            let pending = tally.deliveries.filter { $0 == 0 }.count
            XCTAssertEqual(finished, .success, "\(pending) requests never ended (a hang)")
        }
        let seconds = Date().timeIntervalSince(started)
        let during = ResourceSample.now()

        // The session is released: its engine thread ends and its connections close.
        let engineGone = ProcessResources.settle(timeout: 10) { ResourceSample.now().engineThreads <= before.engineThreads }
        let fdsBack = ProcessResources.settle(timeout: 10) { ResourceSample.now().openFileDescriptors <= before.openFileDescriptors }
        let threadsBack = ProcessResources.settle(timeout: 30) { ResourceSample.now().threads <= before.threads }
        let margin = Int(ProcessInfo.processInfo.environment["CURLFIRE_CHAOS_RSS_MARGIN_MIB"] ?? "") ?? 32
        let rssBack = ProcessResources.settle(timeout: 10) { ResourceSample.now().residentBytes <= before.residentBytes + margin << 20 }
        let after = ResourceSample.now()

        let summary = tally.summary
        let deliveries = tally.deliveries
        var report = [String(format: "ChaosTests: %d requests, %d in flight, seed %llu, %.1f s (%.0f req/s)",
                             total, Self.window, seed, seconds, Double(total) / seconds)]
        report.append("ChaosTests: faults sent: " + Kind.allCases.filter(\.isFault).map { "\($0.rawValue.dropFirst(7)) \(planned[$0] ?? 0)" }
            .joined(separator: ", ") + " (\(Kind.allCases.filter(\.isFault).reduce(0) { $0 + (planned[$1] ?? 0) }) in all)")
        for (outcome, count) in summary.outcomes.sorted(by: { $0.key < $1.key }) {
            report.append("ChaosTests:   \(outcome): \(count)")
        }
        let h2Lines = ((try? String(contentsOf: h2Log, encoding: .utf8)) ?? "").split(separator: "\n")
        let processedGoaway = h2Lines.filter { $0.contains("/goaway-after/1/\(run)/") && !$0.contains("unprocessed") }
        report.append("ChaosTests: the HTTP/2 fault server sent \(h2Lines.filter { $0.contains("goaway last") }.count) GOAWAYs; "
                      + "\(h2Lines.filter { $0.contains("unprocessed") }.count) reads carried streams above a last-stream-id; "
                      + "\(processedGoaway.count) GOAWAY-route requests processed")
        report.append("ChaosTests: slowest: " + Kind.allCases.compactMap { kind in
            summary.slowest[kind].map { "\(kind.rawValue) \(String(format: "%.2f", $0)) s" } }.joined(separator: ", "))
        report.append("ChaosTests: before \(before); peak sampled \(peak); at the end \(during); after release \(after)")
        print(report.joined(separator: "\n"))

        XCTAssertEqual(processedGoaway.count, planned[.goaway] ?? 0, "each GOAWAY-route request processed exactly once")
        XCTAssertEqual(deliveries.filter { $0 > 1 }.count, 0, "requests delivered more than once")
        XCTAssertEqual(deliveries.filter { $0 == 0 }.count, 0, "requests never delivered")
        XCTAssertEqual(summary.unexpected.count, 0, summary.unexpected.prefix(10).joined(separator: "\n"))
        XCTAssertEqual(summary.late.count, 0, "ended later than the resource timeout: \(summary.late.prefix(5))")
        XCTAssertTrue(engineGone, "no engine thread left behind: \(after)")
        XCTAssertTrue(fdsBack, "descriptors back to \(before.openFileDescriptors): \(after)")
        XCTAssertTrue(threadsBack, "threads back to \(before.threads): \(after)")
        XCTAssertTrue(rssBack, "resident memory within \(margin) MiB of \(before): \(after)")
    }
}
