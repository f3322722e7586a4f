@testable import Curlfire
import Foundation
import XCTest

/// A host's circuit breaker as a table of (time, event) → (decision, new state); no network.
final class CircuitBreakerStateTests: XCTestCase {
    typealias Machine = CircuitBreakerState
    enum Event { case admit, success, failure, cancelled }
    enum Expect: Equatable { case admitted(Machine.Admission), recorded }

    /// Feeds each row and checks the decision, the change of state announced and the state after.
    func run(_ machine: inout Machine, _ rows: [(TimeInterval, Event, Expect, CircuitBreaker.State?, CircuitBreaker.State)],
             file: StaticString = #filePath, line: UInt = #line) {
        for (index, row) in rows.enumerated() {
            let (time, event, expect, change, after) = row
            switch event {
            case .admit:
                let (admission, changed) = machine.admit(at: time)
                XCTAssertEqual(.admitted(admission), expect, "row \(index)", file: file, line: line)
                XCTAssertEqual(changed, change, "row \(index) change", file: file, line: line)
            case .success, .failure, .cancelled:
                let outcome: Machine.Outcome = event == .success ? .success : event == .failure ? .failure : .neutral
                XCTAssertEqual(machine.record(outcome, at: time), change, "row \(index) change", file: file, line: line)
            }
            XCTAssertEqual(machine.state, after, "row \(index) state", file: file, line: line)
        }
    }

    func testThatTheBreakerOpensHalfOpensAndCloses() {
        var machine = Machine(failureRateThreshold: 0.5, windowSize: 4, openDuration: 10, halfOpenProbes: 2)
        run(&machine, [
            (0, .admit, .admitted(.allow), nil, .closed),
            (0, .failure, .recorded, nil, .closed),
            (0, .success, .recorded, nil, .closed),
            (0, .success, .recorded, nil, .closed),
            (0, .cancelled, .recorded, nil, .closed),         // cancelled: not counted
            (0, .success, .recorded, nil, .closed),           // full: 1 of 4 failed
            (0, .failure, .recorded, nil, .closed),           // slides: [F,S,S,S] → [S,S,S,F]: 1 of 4
            (0, .failure, .recorded, .open, .open),           // [S,S,F,F]: 2 of 4 reach 0.5
            (1, .admit, .admitted(.reject), nil, .open),
            (1, .success, .recorded, nil, .open),             // a request admitted before: ignored
            (9.9, .admit, .admitted(.reject), nil, .open),
            (10, .admit, .admitted(.allowProbe), .halfOpen, .halfOpen),
            (10, .admit, .admitted(.allowProbe), nil, .halfOpen),
            (10, .admit, .admitted(.reject), nil, .halfOpen), // two probes at a time
            (11, .success, .recorded, nil, .halfOpen),        // one of two successes needed
            (11, .admit, .admitted(.allowProbe), nil, .halfOpen),
            (12, .failure, .recorded, .open, .open),          // a failed probe opens again
            (21.9, .admit, .admitted(.reject), nil, .open),
            (22, .admit, .admitted(.allowProbe), .halfOpen, .halfOpen),
            (22, .cancelled, .recorded, nil, .halfOpen),      // a cancelled probe frees its place
            (22, .admit, .admitted(.allowProbe), nil, .halfOpen),
            (22, .admit, .admitted(.allowProbe), nil, .halfOpen),
            (23, .success, .recorded, nil, .halfOpen),
            (23, .success, .recorded, .closed, .closed),      // two successes close it
            (23, .success, .recorded, nil, .closed),          // with an empty window:
            (23, .failure, .recorded, nil, .closed),
            (23, .failure, .recorded, nil, .closed),          // 2 of 3, not full
            (23, .failure, .recorded, .open, .open),          // 3 of 4
        ])
    }

    func testThatAProbeThatNeverReportsFreesItsPlaceAfterTheCoolDown() {
        var machine = Machine(failureRateThreshold: 1, windowSize: 1, openDuration: 5, halfOpenProbes: 1)
        run(&machine, [
            (0, .failure, .recorded, .open, .open),           // one failure of one
            (5, .admit, .admitted(.allowProbe), .halfOpen, .halfOpen),
            (9, .admit, .admitted(.reject), nil, .halfOpen),
            (10, .admit, .admitted(.allowProbe), nil, .halfOpen),
            (10, .success, .recorded, .closed, .closed),
            (11, .success, .recorded, nil, .closed),          // late report of the lost probe: counted closed
        ])
    }

    func testThatAnOutcomeFromBeforeTheHalfOpenStateIsNotTakenForAProbe() {
        var machine = Machine(failureRateThreshold: 0.5, windowSize: 2, openDuration: 1, halfOpenProbes: 1)
        run(&machine, [
            (0, .failure, .recorded, nil, .closed),
            (0, .failure, .recorded, .open, .open),
            (2, .admit, .admitted(.allowProbe), .halfOpen, .halfOpen),
        ])
        var fresh = Machine(failureRateThreshold: 0.5, windowSize: 2, openDuration: 1, halfOpenProbes: 1)
        run(&fresh, [
            (0, .failure, .recorded, nil, .closed),
            (0, .failure, .recorded, .open, .open),
            (2, .admit, .admitted(.allowProbe), .halfOpen, .halfOpen),
            (2, .success, .recorded, .closed, .closed),
            (2, .success, .recorded, nil, .closed),           // no probe in flight: an ordinary outcome
        ])
    }

    func testThatAttemptsAreClassifiedAndParametersClamped() {
        let breaker = CircuitBreaker(failureRateThreshold: .nan, windowSize: 0, openDuration: -1, halfOpenProbes: -2)
        XCTAssertEqual(breaker.failureRateThreshold, 0.5)
        XCTAssertEqual(breaker.windowSize, 1)
        XCTAssertEqual(breaker.openDuration, 0)
        XCTAssertEqual(breaker.halfOpenProbes, 1)
        XCTAssertEqual(CircuitBreaker(failureRateThreshold: 7).failureRateThreshold, 1)
        func report(_ status: Int?, _ error: CurlfireError?) -> AttemptReport {
            AttemptReport(host: "h", isFirstAttempt: true, statusCode: status, error: error)
        }
        XCTAssertEqual(breaker.outcome(of: report(200, nil)), .success)
        XCTAssertEqual(breaker.outcome(of: report(404, nil)), .success, "the host answered")
        XCTAssertEqual(breaker.outcome(of: report(503, nil)), .failure)
        XCTAssertEqual(breaker.outcome(of: report(429, nil)), .failure)
        XCTAssertEqual(breaker.outcome(of: report(nil, .sessionTaskFailed(code: .cannotConnect, message: ""))), .failure)
        XCTAssertEqual(breaker.outcome(of: report(nil, .explicitlyCancelled)), .neutral)
        XCTAssertEqual(CurlfireError.circuitOpen(host: "api.example.com").description,
                       "The circuit breaker for api.example.com is open after too many failed requests, so this "
                       + "request was not sent; it lets a probe through once its cool-down has passed.")
    }
}
