@testable import Curlfire
import XCTest

/// The reconnection decision as a (state, event) → (state, decision) table.
final class EventStreamReconnectionTests: XCTestCase {
    private typealias End = EventStreamReconnection.End
    private typealias Decision = EventStreamReconnection.Decision

    private func state(reconnects: Bool = true, attempts: Int = 3) -> EventStreamReconnection {
        EventStreamReconnection(configuration: EventStreamConfiguration(
            reconnects: reconnects, reconnectionTime: 1, backoffMultiplier: 2, maximumReconnectionDelay: 5,
            jitter: 0.5, maximumReconnectionAttempts: attempts))
    }

    func testThatEachEndOfAFreshConnectionDecides() {
        let table: [(reconnects: Bool, delivered: Bool, end: End, decision: Decision)] = [
            (true, true, .closed, .reconnect(after: 1)),
            (true, true, .transientFailure, .reconnect(after: 1)),
            (true, false, .closed, .reconnect(after: 2)),            // 1 × 2¹, jitter draw 0.5 = none
            (true, false, .transientFailure, .reconnect(after: 2)),
            (true, true, .noContent, .finish),
            (true, true, .fatalFailure, .fail),
            (true, true, .cancelled, .fail),
            (false, true, .closed, .finish),
            (false, true, .transientFailure, .fail),
            (false, false, .noContent, .finish),
            (false, true, .cancelled, .fail),
        ]
        for row in table {
            var machine = state(reconnects: row.reconnects)
            if row.delivered { machine.eventDelivered() }
            XCTAssertEqual(machine.connectionEnded(row.end, jitter: 0.5), row.decision, "\(row)")
        }
    }

    func testThatFailuresInARowBackOffCappedAndGiveUpAfterTheLimit() {
        var machine = state(attempts: 4)
        XCTAssertEqual(machine.connectionEnded(.transientFailure, jitter: 0.5), .reconnect(after: 2))
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 0.5), .reconnect(after: 4))
        XCTAssertEqual(machine.connectionEnded(.transientFailure, jitter: 0.5), .reconnect(after: 5), "capped")
        XCTAssertEqual(machine.connectionEnded(.transientFailure, jitter: 0.5), .reconnect(after: 5))
        XCTAssertEqual(machine.attempts, 4)
        XCTAssertEqual(machine.connectionEnded(.transientFailure, jitter: 0.5), .giveUp(attempts: 4))
    }

    func testThatAnEventStartsTheCountsAgain() {
        var machine = state(attempts: 2)
        XCTAssertEqual(machine.connectionEnded(.transientFailure, jitter: 0.5), .reconnect(after: 2))
        XCTAssertEqual(machine.connectionEnded(.transientFailure, jitter: 0.5), .reconnect(after: 4))
        machine.eventDelivered()
        XCTAssertEqual(machine.failures, 0)
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 0.5), .reconnect(after: 1), "no backoff after an event")
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 0.5), .reconnect(after: 2))
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 0.5), .giveUp(attempts: 2))
    }

    func testThatRetrySetsTheWaitAndJitterSpreadsBackoff() {
        var machine = state()
        machine.retryReceived(milliseconds: 250)
        machine.eventDelivered()
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 0), .reconnect(after: 0.25), "no jitter without failures")
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 0), .reconnect(after: 0.25), "0.5 × (1 − 0.5)")
        XCTAssertEqual(machine.connectionEnded(.closed, jitter: 1), .reconnect(after: 1.5), "1 × (1 + 0.5)")
    }

    func testThatTheHeadVerdictAndErrorClassesMatchTheStandard() throws {
        func head(_ status: Int, _ type: String?) -> HTTPURLResponse {
            HTTPURLResponse(url: URL(string: "http://127.0.0.1/")!, statusCode: status, httpVersion: "HTTP/1.1",
                            headerFields: type.map { ["Content-Type": $0] } ?? [:])!
        }
        XCTAssertEqual(EventStreamVerdict.judge(head(200, "text/event-stream; charset=utf-8")), .stream)
        XCTAssertEqual(EventStreamVerdict.judge(head(200, "Text/Event-Stream")), .stream)
        XCTAssertEqual(EventStreamVerdict.judge(head(204, nil)), .noContent)
        XCTAssertEqual(EventStreamVerdict.judge(head(500, "text/event-stream")), .rejected)
        XCTAssertEqual(EventStreamVerdict.judge(head(200, "application/json")), .rejected)
        XCTAssertEqual(EventStreamVerdict.error(for: head(503, nil)).responseCode, 503)
        guard case .responseValidationFailed(.unacceptableContentType(_, "application/json")) =
                EventStreamVerdict.error(for: head(200, "application/json")) else { return XCTFail() }
        guard case .responseValidationFailed(.missingContentType) = EventStreamVerdict.error(for: head(200, nil)) else {
            return XCTFail()
        }
        XCTAssertEqual(EventStreamVerdict.end(for: .sessionTaskFailed(code: .connectionLost, message: "")), .transientFailure)
        XCTAssertEqual(EventStreamVerdict.end(for: .sessionTaskFailed(code: .timedOut, message: "")), .transientFailure)
        XCTAssertEqual(EventStreamVerdict.end(for: .sessionTaskFailed(code: .tlsHandshakeFailed, message: "")), .fatalFailure)
        XCTAssertEqual(EventStreamVerdict.end(for: .serverTrustEvaluationFailed(host: "h", reason: .hostMismatch)),
                       .fatalFailure)
        XCTAssertEqual(EventStreamVerdict.end(for: .explicitlyCancelled), .cancelled)
    }
}
