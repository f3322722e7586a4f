@testable import Curlfire
import Foundation
import XCTest

/// The free list of locks transfers reuse (Core/LockPool.swift): a lock comes back from the pool
/// only unlocked and referenced by nobody else, so two transfers never share one. No network.
final class LockPoolTests: XCTestCase {
    func testThatARecycledLockIsTheSameObjectAndUnlocked() {
        let pool = LockPool(capacity: 4)
        var lock = pool.take()
        let identity = ObjectIdentifier(lock)
        lock.withLock {} // used, then released
        XCTAssertTrue(pool.recycle(&lock))
        XCTAssertEqual(pool.count, 1)
        let again = pool.take()
        XCTAssertEqual(ObjectIdentifier(again), identity, "the recycled lock is reused")
        XCTAssertEqual(pool.count, 0, "taken out: no one else can take it")
        XCTAssertTrue(again.tryLock(), "a reused lock is unlocked")
        again.unlock()
    }

    func testThatALockReferencedElsewhereIsNotKept() {
        let pool = LockPool(capacity: 4)
        var lock = pool.take()
        let otherHolder = lock // a second reference: the lock is shared
        XCTAssertFalse(pool.recycle(&lock))
        XCTAssertEqual(pool.count, 0)
        let fresh = pool.take()
        XCTAssertFalse(fresh === otherHolder, "a shared lock is never handed out again")
        withExtendedLifetime(otherHolder) {}
    }

    func testThatAHeldLockIsNotKept() {
        let pool = LockPool(capacity: 4)
        var lock = pool.take()
        lock.lock()
        XCTAssertFalse(pool.recycle(&lock), "a held lock would start the next transfer locked")
        XCTAssertEqual(pool.count, 0)
        lock.unlock()
    }

    func testThatThePoolKeepsAtMostItsCapacity() {
        let pool = LockPool(capacity: 2)
        var kept = 0
        for _ in 0..<3 {
            var lock = Lock.make()
            if pool.recycle(&lock) { kept += 1 }
        }
        XCTAssertEqual(kept, 2)
        XCTAssertEqual(pool.count, 2)
        let first = pool.take(), second = pool.take()
        XCTAssertFalse(first === second, "two takes never give one lock twice")
    }

    /// Transfers made one after another reuse the lock of the one that ended, and each transfer
    /// has a lock no other live transfer has.
    func testThatLiveTransfersNeverShareALock() {
        let session = SessionManager(configuration: .default)
        session.startRequestsImmediately = false // built, never sent: no network
        var live: [Transfer] = []
        for _ in 0..<8 {
            live.append(session.request("http://127.0.0.1:1/never-sent").core.transfer)
        }
        let identities = Set(live.map { ObjectIdentifier($0.lock) })
        XCTAssertEqual(identities.count, live.count, "every live transfer has its own lock")
        for transfer in live {
            XCTAssertTrue(transfer.lock.tryLock(), "a new transfer's lock is unlocked")
            transfer.lock.unlock()
        }
    }
}
