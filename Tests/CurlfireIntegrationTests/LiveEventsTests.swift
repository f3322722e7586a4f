import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Records every live event, retry, redirect and finish, per request, in the order delivered.
final class LiveEventRecorder: EventMonitor, @unchecked Sendable { // `@unchecked`: `log` is guarded by `lock`
    let queue = DispatchQueue(label: "live-events-test")
    private let lock = NSLock()
    private var log: [UUID: [PhaseEvent]] = [:]
    private var marks: [UUID: [String]] = [:]
    private var pool: [ConnectionPoolStatistics] = []
    private var closed: [ClosedConnection] = []

    var receivesLiveEvents: Bool { true }

    func request(_ request: any Request, didReachPhase event: PhaseEvent) {
        lock.withLock {
            log[request.id, default: []].append(event)
            marks[request.id, default: []].append(Self.name(event.kind))
        }
    }

    func request(_ request: any Request, willRetryAfter delay: TimeInterval) {
        lock.withLock { marks[request.id, default: []].append("retry") }
    }

    func request(_ request: any Request, willRedirectTo redirect: URLRequest, for response: HTTPURLResponse) {
        lock.withLock { marks[request.id, default: []].append("redirect") }
    }

    func requestDidFinish(_ request: any Request) {
        lock.withLock { marks[request.id, default: []].append("finish") }
    }

    func connectionPoolDidChange(_ statistics: ConnectionPoolStatistics) {
        lock.withLock { pool.append(statistics) }
    }

    func connectionDidClose(_ connection: ClosedConnection) {
        lock.withLock { closed.append(connection) }
    }

    /// The request's phase events, once the queue has delivered everything sent so far.
    func events(_ request: any Request) -> [PhaseEvent] {
        queue.sync {}
        return lock.withLock { log[request.id] ?? [] }
    }

    /// The request's events as short names (phases, `retry`, `redirect`, `finish`).
    func names(_ request: any Request) -> [String] {
        queue.sync {}
        return lock.withLock { marks[request.id] ?? [] }
    }

    /// Every pool snapshot delivered so far.
    var poolHistory: [ConnectionPoolStatistics] {
        queue.sync {}
        return lock.withLock { pool }
    }

    /// The connections closed so far.
    var closedConnections: [ClosedConnection] {
        queue.sync {}
        return lock.withLock { closed }
    }

    /// The request ids seen.
    var requestIDs: [UUID] {
        queue.sync {}
        return lock.withLock { Array(log.keys) }
    }

    /// Every phase event of every request.
    var allEvents: [PhaseEvent] {
        queue.sync {}
        return lock.withLock { log.values.flatMap { $0 } }
    }

    static func name(_ kind: PhaseEvent.Kind) -> String {
        switch kind {
        case .dnsStart: "dnsStart"
        case .dnsEnd: "dnsEnd"
        case .connectStart: "connectStart"
        case .connectEnd: "connectEnd"
        case .tlsStart: "tlsStart"
        case .tlsEnd: "tlsEnd"
        case let .connectionAcquired(_, reused, _, _): reused ? "acquiredReused" : "acquiredNew"
        case .connectionReleased: "released"
        case .requestHeadersSent: "headersSent"
        case let .responseHeadersReceived(status): "headers\(status)"
        case .firstBodyByte: "firstByte"
        case let .cacheLookup(lookup): "cache.\(lookup)"
        }
    }
}

/// Live phase events and pool statistics against real servers: nginx (HTTP/1.1, and HTTP/2 over
/// TLS) and httpbin.
final class LiveEventsTests: XCTestCase {
    private func nginx(_ path: String) throws -> String {
        try XCTUnwrap(try Live.servers().nginxHTTP).absoluteString + path
    }

    private func liveSession(_ change: (inout SessionConfiguration) -> Void = { _ in },
                             interceptor: (any RequestInterceptor)? = nil) -> (SessionManager, LiveEventRecorder) {
        var configuration = SessionConfiguration()
        change(&configuration)
        let recorder = LiveEventRecorder()
        return (SessionManager(configuration: configuration, eventMonitors: [recorder], interceptor: interceptor), recorder)
    }

    /// The phases of one attempt on a new plain-HTTP connection, and on the same connection reused.
    private let freshHTTP = ["connectStart", "connectEnd", "acquiredNew", "headersSent", "headers200", "firstByte",
                             "released"]
    private let reusedHTTP = ["acquiredReused", "headersSent", "headers200", "firstByte", "released"]

    /// DNS start and end, present for a name, absent for an address libcurl does not look up.
    private func droppingDNS(_ names: [String]) -> [String] {
        names.filter { $0 != "dnsStart" && $0 != "dnsEnd" }
    }

    func testThatAFreshThenAReusedConnectionReportEveryPhaseInOrder() async throws {
        // Given
        let (session, recorder) = liveSession()
        let url = try nginx("/small.txt")
        // When: two requests one after the other
        let first = session.request(url)
        let firstResponse = await first.validate().serializingData().response
        let second = session.request(url)
        let secondResponse = await second.validate().serializingData().response
        // Then
        XCTAssertNil(firstResponse.error)
        XCTAssertNil(secondResponse.error)
        let firstNames = recorder.names(first)
        XCTAssertEqual(droppingDNS(firstNames), freshHTTP + ["finish"])
        if firstNames.contains("dnsStart") { XCTAssertEqual(Array(firstNames.prefix(2)), ["dnsStart", "dnsEnd"]) }
        XCTAssertEqual(recorder.names(second), reusedHTTP + ["finish"])
        // The same connection, by id, and the peer's address
        let firstEvents = recorder.events(first)
        let secondEvents = recorder.events(second)
        guard case let .connectionAcquired(firstID, false, address, port)? =
                firstEvents.first(where: { if case .connectionAcquired = $0.kind { true } else { false } })?.kind,
              case let .connectionAcquired(secondID, true, _, _)? =
                secondEvents.first(where: { if case .connectionAcquired = $0.kind { true } else { false } })?.kind
        else { return XCTFail("\(firstEvents) \(secondEvents)") }
        XCTAssertEqual(firstID, secondID)
        XCTAssertEqual(address, "127.0.0.1")
        XCTAssertEqual(port, try Live.servers().nginxHTTP?.port)
        XCTAssertTrue(firstEvents.contains { $0.kind == .connectStart(address: "127.0.0.1", port: port) })
        // In time order, and within the request's own timeline
        let dates = (firstEvents + secondEvents).map(\.date)
        XCTAssertEqual(dates, dates.sorted())
        let timeline = try XCTUnwrap(secondResponse.metrics)
        XCTAssertTrue(timeline.isReusedConnection)
    }

    func testThatANameLookupIsReportedWithItsAddressesBeforeTheConnectStarts() async throws {
        // Given: nginx by name (a lookup libcurl has not cached in this new session)
        let (session, recorder) = liveSession()
        let port = try XCTUnwrap(try Live.servers().nginxHTTP?.port)
        // When
        let request = session.request("http://localhost:\(port)/small.txt")
        let response = await request.validate().serializingData().response
        // Then
        XCTAssertNil(response.error)
        let events = recorder.events(request)
        XCTAssertEqual(events.first?.kind, .dnsStart(host: "localhost"))
        guard case let .dnsEnd(host, addresses)? = events.dropFirst().first?.kind else { return XCTFail("\(events)") }
        XCTAssertEqual(host, "localhost")
        XCTAssertFalse(addresses.isEmpty)
        XCTAssertTrue(addresses.allSatisfy { $0 == "127.0.0.1" || $0 == "::1" }, "\(addresses)")
        XCTAssertEqual(recorder.names(request).dropFirst(2).first, "connectStart")
        XCTAssertTrue(recorder.names(request).contains("acquiredNew"))
    }

    func testThatAnHTTP2RequestOverTLSReportsTheHandshakeAndThePeerChain() async throws {
        // Given: nginx over TLS 1.3 with HTTP/2
        let https = try XCTUnwrap(try Live.servers().nginxHTTPS).absoluteString
        let root = try Certificate(contentsOf: try Live.servers().pkiFile("root-ca.pem"))
        let (session, recorder) = liveSession { $0.trustedRootCertificates = [root] }
        // When
        let first = session.request(https + "/small.txt")
        let response = await first.validate().serializingData().response
        let second = session.request(https + "/small.txt")
        _ = await second.validate().serializingData().response
        // Then
        XCTAssertNil(response.error)
        XCTAssertEqual(response.metrics?.httpVersion, "HTTP/2")
        XCTAssertEqual(droppingDNS(recorder.names(first)),
                       ["connectStart", "connectEnd", "tlsStart", "tlsEnd", "acquiredNew", "headersSent", "headers200",
                        "firstByte", "released", "finish"])
        XCTAssertEqual(recorder.names(second), reusedHTTP + ["finish"])
        let tls = recorder.events(first).compactMap { event -> (String, String, [Data])? in
            if case let .tlsEnd(version, cipher, chain) = event.kind { return (version, cipher, chain) } else { return nil }
        }
        XCTAssertEqual(tls.count, 1)
        XCTAssertEqual(tls.first?.0, "TLSv1.3")
        XCTAssertFalse(tls.first?.1.isEmpty ?? true)
        let chain = try XCTUnwrap(tls.first?.2)
        XCTAssertGreaterThanOrEqual(chain.count, 1)
        // The leaf is the certificate the server presents (DER, parseable)
        XCTAssertNotNil(Certificate(derData: chain[0]))
    }

    func testThatARedirectReportsEachHopOnTheReusedConnection() async throws {
        // Given: httpbin's one-hop redirect
        let (session, recorder) = liveSession()
        // When
        let request = session.request(try Live.httpbin("/redirect/1"))
        let response = await request.validate().serializingData().response
        // Then: the 302 hop on a new connection, the redirect, the 200 hop on the same connection
        XCTAssertEqual(response.response?.statusCode, 200)
        let names = droppingDNS(recorder.names(request))
        XCTAssertEqual(names, ["connectStart", "connectEnd", "acquiredNew", "headersSent", "headers302", "firstByte",
                               "released", "redirect"] + reusedHTTP + ["finish"])
    }

    func testThatARetriedRequestReportsBothAttemptsAndTheRetryBetween() async throws {
        // Given: a policy retrying a 503 once, after a short delay
        let (session, recorder) = liveSession(interceptor: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.05))
        // When
        let request = session.request(try Live.httpbin("/status/503"))
        let response = await request.serializingData().response
        // Then
        XCTAssertEqual(response.response?.statusCode, 503)
        XCTAssertEqual(request.retryCount, 1)
        let names = droppingDNS(recorder.names(request))
        let firstAttempt = ["connectStart", "connectEnd", "acquiredNew", "headersSent", "headers503", "released"]
        let secondAttempt = ["acquiredReused", "headersSent", "headers503", "released"]
        XCTAssertEqual(names, firstAttempt + ["retry"] + secondAttempt + ["finish"])
    }

    func testThatTheCacheLookupIsReportedAndAHitMakesNoConnection() async throws {
        // Given: a cache, and a response storable for 60 s
        let (session, recorder) = liveSession { $0.responseCache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil) }
        let url = try Live.httpbin("/cache/60")
        // When: a miss, then a hit
        let miss = session.request(url)
        let missResponse = await miss.validate().serializingData().response
        let hit = session.request(url)
        let hitResponse = await hit.validate().serializingData().response
        // Then
        XCTAssertEqual(missResponse.cacheStatus, .network)
        XCTAssertEqual(hitResponse.cacheStatus, .hit)
        XCTAssertEqual(droppingDNS(recorder.names(miss)), ["cache.miss"] + freshHTTP + ["finish"])
        XCTAssertEqual(recorder.names(hit), ["cache.hit", "finish"], "a hit sends nothing")
        // A stored response with an ETag and no freshness: revalidated on the reused connection, a 304
        let etag = try Live.httpbin("/etag/abc?\(Live.marker())")
        _ = await session.request(etag).validate().serializingData().response
        let revalidated = session.request(etag)
        let revalidatedResponse = await revalidated.validate().serializingData().response
        XCTAssertEqual(revalidatedResponse.cacheStatus, .revalidated)
        XCTAssertEqual(recorder.names(revalidated),
                       ["cache.revalidating", "acquiredReused", "headersSent", "headers304", "released", "finish"])
    }

    func testThatASessionWithoutALiveMonitorReportsNoPoolStatistics() async throws {
        // Given: a session whose monitor does not ask for live events
        let session = SessionManager(eventMonitors: [ClosureEventMonitor()])
        // When
        let response = await session.request(try nginx("/small.txt")).serializingData().response
        // Then: nothing is tracked (no live-event callback was installed)
        XCTAssertNil(response.error)
        XCTAssertNil(session.connectionPoolStatistics)
    }

    func testThatPoolGaugesMatchNginxsOwnConnectionCountUnderLoad() async throws {
        // Given: at most 6 connections to nginx, and 200 requests at once
        let (session, recorder) = liveSession { $0.httpMaximumConnectionsPerHost = 6 }
        let marker = Live.marker()
        let base = try nginx("/small.txt?\(marker)=")
        let host = try "127.0.0.1:\(XCTUnwrap(try Live.servers().nginxHTTP?.port))"
        // When
        let requests = (0..<200).map { session.request(base + "\($0)").validate().serializingData() }
        var sampled: [ConnectionPoolStatistics] = []
        for request in requests {
            if let statistics = session.connectionPoolStatistics { sampled.append(statistics) }
            let error = await request.response.error
            XCTAssertNil(error)
        }
        // Then: while loaded, never more than 6 open, and requests waited for a connection
        let history = recorder.poolHistory + sampled
        XCTAssertLessThanOrEqual(history.map(\.openConnections).max() ?? 0, 6)
        XCTAssertGreaterThan(history.map(\.waitingRequests).max() ?? 0, 0)
        XCTAssertGreaterThan(history.map(\.activeRequests).max() ?? 0, 6)
        // Afterwards: every connection idle, nothing waiting
        let after = try XCTUnwrap(session.connectionPoolStatistics)
        XCTAssertEqual(after.waitingRequests, 0)
        XCTAssertEqual(after.activeRequests, 0)
        XCTAssertEqual(after.hosts[host]?.inUse, 0)
        let open = try XCTUnwrap(after.hosts[host]?.open)
        // nginx saw exactly the connections the session opened (its $connection serial per request)
        try await Task.sleep(nanoseconds: 300_000_000) // nginx logs after the response
        let log = try XCTUnwrap(try Live.servers().logs["nginx"])
        let serials = Set(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.contains(marker) }
            .compactMap { line in line.range(of: " conn=").map { String(line[$0.upperBound...].prefix { $0 != " " }) } })
        let opened = Set(recorder.allEvents.compactMap { event -> Int? in
            if case let .connectionAcquired(id, false, _, _) = event.kind { return id } else { return nil }
        })
        XCTAssertEqual(serials.count, opened.count, "nginx connections \(serials.count), session's \(opened.count)")
        let closed = recorder.closedConnections.filter { opened.contains($0.connectionID) }.count
        XCTAssertEqual(open, opened.count - closed, "every connection opened and not closed is open, idle")
        XCTAssertEqual(after.hosts[host]?.idle, open)
    }
}
