@testable import Curlfire
import Foundation
import XCTest

/// `RequestStateMachine.HandlerList`: the first handler inline, later ones in an array, always
/// handed out oldest first. No libcurl, no network.
final class HandlerListTests: XCTestCase {
    typealias Machine = RequestStateMachine

    private func handler(_ name: String, _ ran: Recorder<String>) -> Machine.Handler {
        Machine.Handler(queue: nil) { _ in ran.append(name) }
    }

    private let outcome = Transfer.failedOutcome(.explicitlyCancelled, request: nil)

    /// Takes every handler out, running each, and returns how many there were.
    private func drain(_ list: inout Machine.HandlerList) -> Int {
        var taken = 0
        while let next = list.removeFirst() {
            next.run(outcome)
            taken += 1
        }
        return taken
    }

    func testThatAnEmptyListHandsOutNothing() {
        var list = Machine.HandlerList()
        XCTAssertTrue(list.isEmpty)
        XCTAssertEqual(list.count, 0)
        XCTAssertNil(list.removeFirst())
        XCTAssertTrue(list.isEmpty)
    }

    func testThatHandlersComeOutInAttachOrder() {
        let ran = Recorder<String>()
        var list = Machine.HandlerList(handler("a", ran))
        XCTAssertFalse(list.isEmpty)
        XCTAssertEqual(list.count, 1)
        list.append(handler("b", ran))
        list.append(handler("c", ran))
        XCTAssertEqual(list.count, 3)
        XCTAssertEqual(drain(&list), 3)
        XCTAssertEqual(ran.all, ["a", "b", "c"])
        XCTAssertTrue(list.isEmpty)
    }

    func testThatHandlersAddedWhileTakingOutKeepTheirOrder() {
        let ran = Recorder<String>()
        var list = Machine.HandlerList()
        list.append(handler("a", ran))
        list.append(handler("b", ran))
        list.removeFirst()?.run(outcome) // "a"; "b" moves into the inline slot
        list.append(handler("c", ran))
        list.removeFirst()?.run(outcome) // "b"
        XCTAssertEqual(list.count, 1)
        list.removeFirst()?.run(outcome) // "c": the list is empty again
        XCTAssertTrue(list.isEmpty)
        list.append(handler("d", ran)) // after emptying, the inline slot is used again
        XCTAssertEqual(list.count, 1)
        XCTAssertEqual(drain(&list), 1)
        XCTAssertEqual(ran.all, ["a", "b", "c", "d"])
    }

    /// Through the machine: many handlers attached before and during the drain run once each, in order.
    func testThatTheMachineRunsManyHandlersOnceEachInOrder() {
        let impossible = Recorder<String>()
        let ran = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "finished", impossible: impossible)
        for index in 0..<5 { XCTAssertNil(machine.attachHandler(handler("\(index)", ran))) }
        guard let toDrain = machine.outcomePublished(outcome) else { return XCTFail("handlers wait: drain now") }
        var index = 5
        while let next = machine.nextHandler() {
            next.run(toDrain)
            if index < 8 { XCTAssertNil(machine.attachHandler(handler("\(index)", ran))); index += 1 }
        }
        XCTAssertEqual(ran.all, (0..<8).map(String.init))
        guard case .delivered = machine.delivery else { return XCTFail("\(machine.delivery)") }
        XCTAssertEqual(impossible.all, [])
    }
}
