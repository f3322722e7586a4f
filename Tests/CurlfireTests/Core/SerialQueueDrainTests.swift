@testable import Curlfire
import Foundation
import XCTest

/// The engine's per-queue drain (Lifecycle/SerialQueueDrain.swift): one block made once runs each
/// submitted batch on the queue, in release order, and exactly where its dispatch sits among the
/// queue's other blocks. A real serial queue, no network.
final class SerialQueueDrainTests: XCTestCase {
    private let outcome = Transfer.failedOutcome(.explicitlyCancelled, request: nil)

    func testThatEachBatchRunsInOrderAtItsOwnPlaceAmongTheQueuesOtherBlocks() {
        let queue = DispatchQueue(label: "drain.order")
        let drain = SerialQueueDrain(queue: queue)
        let ran = LockedValue<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() } // hold the queue so everything below waits its turn
        func item(_ name: String) -> DeliveryBatch.Item {
            .job { ran.withLock { $0.append(name) } }
        }
        drain.submit(item("a1"), [item("a2"), item("a3")])
        queue.async { ran.withLock { $0.append("other1") } }
        drain.submit(.run({ _ in ran.withLock { $0.append("b1") } }, outcome), [])
        queue.async { ran.withLock { $0.append("other2") } }
        drain.submit(item("c1"), [item("c2")])
        gate.signal()
        queue.sync {}
        XCTAssertEqual(ran.withLock { $0 }, ["a1", "a2", "a3", "other1", "b1", "other2", "c1", "c2"],
                       "a batch never runs ahead of a block dispatched before it")
    }

    func testThatALoneBatchTakenWholeKeepsEveryItemAndReleasesThem() {
        // A batch that is the only one waiting trades buffers with the running one instead of
        // being copied; batches that wait behind others are copied out. Mixed, nothing is lost,
        // repeated or kept alive.
        final class Token: Sendable {}
        let queue = DispatchQueue(label: "drain.swap")
        let drain = SerialQueueDrain(queue: queue)
        let ran = LockedValue<[String]>([])
        func item(_ name: String, holding token: Token? = nil) -> DeliveryBatch.Item {
            .job { withExtendedLifetime(token) { ran.withLock { $0.append(name) } } }
        }
        weak var released: Token?
        do {
            let token = Token()
            released = token
            drain.submit(item("a1", holding: token), [item("a2")])
        }
        queue.sync {}
        XCTAssertNil(released, "a run item is not kept by either buffer")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        drain.submit(item("b1"), [item("b2"), item("b3")])
        drain.submit(item("c1"), [])
        gate.signal()
        queue.sync {}
        drain.submit(item("d1"), [item("d2")])
        queue.sync {}
        XCTAssertEqual(ran.withLock { $0 }, ["a1", "a2", "b1", "b2", "b3", "c1", "d1", "d2"])
    }

    func testThatHandlersRunOnTheQueueOnceEach() {
        let queue = DispatchQueue(label: "drain.once")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let drain = SerialQueueDrain(queue: queue)
        let count = LockedValue(0)
        let offQueue = LockedValue(0)
        for _ in 0..<100 {
            drain.submit(.job {
                if DispatchQueue.getSpecific(key: key) != true { offQueue.withLock { $0 += 1 } }
                count.withLock { $0 += 1 }
            }, [])
        }
        // The queue is serial: a block queued after the 100 batches runs after all of them. (Not
        // XCTest's wait(for:timeout:), whose waiter's weak reference LeakSanitizer reports as a leak.)
        queue.sync {}
        XCTAssertEqual(count.withLock { $0 }, 100)
        XCTAssertEqual(offQueue.withLock { $0 }, 0, "every handler ran on its queue")
    }
}
