@testable import Curlfire
import Foundation
import XCTest

/// The engine's batch of handlers per serial queue (Lifecycle/DeliveryBatch.swift), with the dispatch
/// recorded instead of performed: no engine, no network.
final class DeliveryBatchTests: XCTestCase {
    private let outcome = Transfer.failedOutcome(.explicitlyCancelled, request: nil)

    /// Records each dispatched block with its queue's label; runs them when asked.
    private final class Dispatches {
        var blocks: [(label: String, block: @Sendable () -> Void)] = []
        func record(_ queue: DispatchQueue, _ block: @escaping @Sendable () -> Void) {
            blocks.append((queue.label, block))
        }
    }

    func testThatEachQueueGetsOneBlockRunningItsHandlersInReleaseOrder() {
        let first = DispatchQueue(label: "first"), second = DispatchQueue(label: "second")
        let ran = LockedValue<[String]>([])
        var batch = DeliveryBatch()
        for (name, queue) in [("a1", first), ("b1", second), ("a2", first), ("a3", first), ("b2", second)] {
            batch.add({ _ in ran.withLock { $0.append(name) } }, outcome: outcome, on: queue)
        }
        XCTAssertFalse(batch.isEmpty)
        let dispatches = Dispatches()
        batch.flush(dispatch: dispatches.record)
        XCTAssertEqual(dispatches.blocks.map(\.label), ["first", "second"], "one block per queue, in first-use order")
        XCTAssertTrue(batch.isEmpty)
        dispatches.blocks[0].block()
        XCTAssertEqual(ran.withLock { $0 }, ["a1", "a2", "a3"])
        dispatches.blocks[1].block()
        XCTAssertEqual(ran.withLock { $0 }, ["a1", "a2", "a3", "b1", "b2"])
    }

    func testThatAFlushHandsOutOnlyWhatWasAddedSinceTheLastOne() {
        let queue = DispatchQueue(label: "only")
        let count = LockedValue(0)
        var batch = DeliveryBatch()
        batch.add({ _ in count.withLock { $0 += 1 } }, outcome: outcome, on: queue)
        let dispatches = Dispatches()
        batch.flush(dispatch: dispatches.record)
        batch.flush(dispatch: dispatches.record)
        XCTAssertEqual(dispatches.blocks.count, 1, "an empty batch dispatches nothing")
        batch.add({ _ in count.withLock { $0 += 10 } }, outcome: outcome, on: queue)
        batch.flush(dispatch: dispatches.record)
        XCTAssertEqual(dispatches.blocks.count, 2)
        dispatches.blocks.forEach { $0.block() }
        XCTAssertEqual(count.withLock { $0 }, 11, "each handler ran once")
    }

    func testThatOnlyTheSessionsOwnCallbackQueueCountsAsSerial() {
        let own = SessionManager()
        XCTAssertTrue(own.isKnownSerial(own.callbackQueue))
        XCTAssertFalse(own.isKnownSerial(DispatchQueue(label: "user")))
        let given = SessionManager(callbackQueue: DispatchQueue(label: "given", attributes: .concurrent))
        XCTAssertFalse(given.isKnownSerial(given.callbackQueue), "a queue the caller gave may be concurrent")
    }

    func testThatAwaitingTasksAreResumedAtTheFlushInOneBurstNotBefore() async throws {
        let registered = LockedValue<[UnsafeContinuation<Void, Never>]>([])
        let resumed = LockedValue(0)
        let tasks = (0..<3).map { _ in
            Task {
                await withUnsafeContinuation { continuation in registered.withLock { $0.append(continuation) } }
                resumed.withLock { $0 += 1 }
            }
        }
        while registered.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(5)) }
        var batch = DeliveryBatch()
        for continuation in registered.withLock({ $0 }) { batch.add(resuming: continuation) }
        XCTAssertFalse(batch.isEmpty, "a waiting task keeps the batch from being empty")
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(resumed.withLock { $0 }, 0, "no task is resumed before the flush")
        batch.flush(dispatch: { queue, _ in XCTFail("no handler was queued for \(queue.label)") })
        XCTAssertTrue(batch.isEmpty)
        for task in tasks { await task.value }
        XCTAssertEqual(resumed.withLock { $0 }, 3, "each task resumed once")
    }

    func testThatTheEnginesFlushThroughDrainsResumesAwaitingTasksToo() async throws {
        let registered = LockedValue<[UnsafeContinuation<Void, Never>]>([])
        let task = Task { await withUnsafeContinuation { continuation in registered.withLock { $0.append(continuation) } } }
        while registered.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        var batch = DeliveryBatch()
        batch.add(resuming: registered.withLock { $0[0] })
        batch.flush(submit: { queue, _, _ in XCTFail("no handler was queued for \(queue.label)") })
        XCTAssertTrue(batch.isEmpty)
        await task.value // hangs (and the test times out) if the flush the engine uses forgot the task
    }
}
