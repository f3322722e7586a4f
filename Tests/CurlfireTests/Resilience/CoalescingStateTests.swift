@testable import Curlfire
import XCTest

/// Single flight as a table of events and answers; members are numbers, no transfers, no network.
final class CoalescingStateTests: XCTestCase {
    struct Member: Identifiable, Sendable, Equatable {
        let id: Int
    }

    typealias State = CoalescingState<Member>

    func testThatTheFlightTableHolds() {
        var state = State()
        XCTAssertEqual(state.join(Member(id: 1), key: "GET /a"), .lead(flight: 1))
        XCTAssertEqual(state.join(Member(id: 2), key: "GET /a"), .follow(flight: 1))
        XCTAssertEqual(state.join(Member(id: 3), key: "GET /b"), .lead(flight: 2), "another key, another flight")
        XCTAssertEqual(state.join(Member(id: 4), key: "GET /a"), .follow(flight: 1))
        XCTAssertEqual(state.leave(1), .init(flight: 1, grounded: false), "the leader leaves: the flight goes on")
        XCTAssertEqual(state.land(1).map(\.id), [2, 4], "the others get the result, in order")
        XCTAssertNil(state.leave(2), "landed: nothing to leave")
        XCTAssertEqual(state.land(1), [], "a flight lands once")
        XCTAssertEqual(state.join(Member(id: 5), key: "GET /a"), .lead(flight: 3), "after landing, a new flight")
        XCTAssertEqual(state.leave(5), .init(flight: 3, grounded: true), "the last one leaves: grounded")
        XCTAssertEqual(state.join(Member(id: 6), key: "GET /a"), .lead(flight: 4), "a grounded flight takes no one")
        XCTAssertEqual(state.land(3), [], "the grounded flight's transfer ends: no one to tell")
        XCTAssertEqual(state.land(4).map(\.id), [6], "and it does not disturb the new flight")
        XCTAssertEqual(state.land(2).map(\.id), [3])
        XCTAssertTrue(state.flights.isEmpty)
    }

    func testThatTheKeyHoldsMethodURLHeadersAndCredentials() {
        var first = URLRequest(url: URL(string: "http://h/a?q=1")!)
        first.setValue("1", forHTTPHeaderField: "X-A")
        var second = first
        second.setValue(nil, forHTTPHeaderField: "X-A")
        second.setValue("1", forHTTPHeaderField: "x-a")
        XCTAssertEqual(RequestCoalescer.key(for: first, credential: nil), RequestCoalescer.key(for: second, credential: nil),
                       "header names compare case-insensitively")
        var other = first
        other.setValue("Bearer b", forHTTPHeaderField: "Authorization")
        XCTAssertNotEqual(RequestCoalescer.key(for: first, credential: nil), RequestCoalescer.key(for: other, credential: nil))
        XCTAssertNotEqual(RequestCoalescer.key(for: first, credential: ("u", "p")), RequestCoalescer.key(for: first, credential: ("u", "q")))
        var patient = first
        patient.timeoutInterval = 300
        XCTAssertNotEqual(RequestCoalescer.key(for: first, credential: nil), RequestCoalescer.key(for: patient, credential: nil),
                          "the shared attempt runs with one idle timeout")
        var head = first
        head.httpMethod = "HEAD"
        XCTAssertNotEqual(RequestCoalescer.key(for: first, credential: nil), RequestCoalescer.key(for: head, credential: nil))
    }
}
