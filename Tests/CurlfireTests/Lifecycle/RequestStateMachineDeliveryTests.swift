@testable import Curlfire
import Foundation
import XCTest

/// The machine's delivery part (RequestStateMachine.swift, "Delivery"): handlers collected in attach
/// order, the outcome published once after the machine finished, one drain loop at a time. No
/// libcurl, no network.
final class RequestStateMachineDeliveryTests: XCTestCase {
    typealias Machine = RequestStateMachine

    /// A handler that records `name` when it runs (inline: no queue).
    private func handler(_ name: String, _ ran: Recorder<String>) -> Machine.Handler {
        Machine.Handler(queue: nil) { _ in ran.append(name) }
    }

    private let outcome = Transfer.failedOutcome(.explicitlyCancelled, request: nil)

    /// Runs the drain loop as `Transfer.drain` does.
    private func drain(_ machine: inout Machine, _ outcome: TransferOutcome) {
        while let next = machine.nextHandler() { next.run(outcome) }
    }

    func testThatHandlersWaitForTheOutcomeAndRunInAttachOrder() {
        let impossible = Recorder<String>()
        let ran = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        XCTAssertFalse(machine.hasHandlers)
        XCTAssertNil(machine.attachHandler(handler("a", ran)))
        XCTAssertNil(machine.attachHandler(handler("b", ran)))
        XCTAssertTrue(machine.hasHandlers)
        XCTAssertFalse(machine.isDelivered)
        _ = RequestStateMachineTests.feed(&machine, .ended(.final))
        guard let toDrain = machine.outcomePublished(outcome) else { return XCTFail("handlers wait: drain now") }
        XCTAssertNotNil(machine.publishedOutcome)
        drain(&machine, toDrain)
        XCTAssertEqual(ran.all, ["a", "b"])
        guard case .delivered = machine.delivery else { return XCTFail("\(machine.delivery)") }
        XCTAssertEqual(impossible.all, [])
    }

    func testThatWithNoHandlerTheOutcomeIsDeliveredAndALateHandlerDrainsAtOnce() {
        let impossible = Recorder<String>()
        let ran = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "finished", impossible: impossible)
        XCTAssertNil(machine.outcomePublished(outcome), "nobody to give it to")
        XCTAssertTrue(machine.isDelivered)
        XCTAssertTrue(machine.hasHandlers, "a request whose outcome is out is committed")
        guard let toDrain = machine.attachHandler(handler("late", ran)) else { return XCTFail("runs at once") }
        drain(&machine, toDrain)
        XCTAssertEqual(ran.all, ["late"])
        XCTAssertEqual(impossible.all, [])
    }

    func testThatAHandlerAttachedWhileDrainingJoinsTheRunningLoop() {
        let impossible = Recorder<String>()
        let ran = Recorder<String>()
        var machine = RequestStateMachineTests.machine(in: "finished", impossible: impossible)
        _ = machine.attachHandler(handler("a", ran))
        guard let toDrain = machine.outcomePublished(outcome) else { return XCTFail("drain now") }
        guard let first = machine.nextHandler() else { return XCTFail("a") }
        first.run(toDrain)
        // While the last listed handler runs, another is attached: no second loop, the running one takes it.
        XCTAssertNil(machine.attachHandler(handler("b", ran)))
        drain(&machine, toDrain)
        XCTAssertEqual(ran.all, ["a", "b"])
        guard case .delivered = machine.delivery else { return XCTFail("\(machine.delivery)") }
        XCTAssertEqual(impossible.all, [])
    }

    func testThatPublishingBeforeTheEndOrTwiceIsImpossible() {
        let impossible = Recorder<String>()
        var running = RequestStateMachineTests.machine(in: "running", impossible: impossible)
        XCTAssertNil(running.outcomePublished(outcome))
        XCTAssertFalse(running.isDelivered, "ignored")
        XCTAssertEqual(impossible.all.count, 1)
        var finished = RequestStateMachineTests.machine(in: "finished", impossible: impossible)
        _ = finished.outcomePublished(outcome)
        XCTAssertNil(finished.outcomePublished(outcome))
        XCTAssertEqual(impossible.all.count, 2)
        XCTAssertNil(finished.nextHandler(), "no drain under way")
        XCTAssertEqual(impossible.all.count, 3)
    }
}
