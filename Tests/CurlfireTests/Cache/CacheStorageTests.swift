@testable import Curlfire
import Foundation
import Synchronization
import XCTest

/// The memory and disk tiers: LRU purging, restart, checksums. Files only, no network.
final class CacheStorageTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-cache-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func entry(_ key: String, bytes: Int) -> CachedEntry {
        var entry = CacheFixture.entry(["Cache-Control": "max-age=60"], body: String(repeating: "x", count: bytes))
        entry.key = key
        return entry
    }

    func testThatTheMemoryTierPurgesTheLeastRecentlyUsedDownToThePreferredUsage() {
        var tier = MemoryTier(capacity: 10_000)
        for index in 0..<4 { tier.store(entry("k\(index)", bytes: 2_000)) }
        _ = tier.entry(forKey: "k0") // k0 becomes the most recently used
        tier.store(entry("k4", bytes: 2_000)) // over capacity: purge to 8 000
        XCTAssertLessThanOrEqual(tier.usage, tier.preferredUsage)
        XCTAssertNotNil(tier.entry(forKey: "k0"), "recently used survives")
        XCTAssertNil(tier.entry(forKey: "k1"), "least recently used goes first")
        XCTAssertNotNil(tier.entry(forKey: "k4"))
    }

    func testThatAnEntryCostingMoreThanThePurgeTargetSurvivesItsOwnStore() {
        // The case: a 4,000-byte tier (purge target 3,200) storing entries of about 3,271 bytes.
        var tier = MemoryTier(capacity: 4_000)
        let probe = entry("kx", bytes: 0)
        let body = 3_271 - probe.cost
        for index in 0..<5 {
            let stored = entry("k\(index)", bytes: body)
            XCTAssertGreaterThan(stored.cost, tier.preferredUsage)
            XCTAssertLessThanOrEqual(stored.cost, tier.capacity)
            tier.store(stored)
            XCTAssertEqual(tier.count, 1, "store \(index): the entry just stored is kept, alone")
            XCTAssertNotNil(tier.entry(forKey: "k\(index)"))
            XCTAssertLessThanOrEqual(tier.usage, tier.capacity)
        }
        XCTAssertNil(tier.entry(forKey: "k3"), "the older entry made room")
    }

    func testThatAnEntryLargerThanTheCapacityIsNotKept() {
        var tier = MemoryTier(capacity: 100)
        tier.store(entry("big", bytes: 1_000))
        XCTAssertEqual(tier.count, 0)
        XCTAssertEqual(tier.usage, 0)
    }

    func testThatTheDiskTierSurvivesARestart() throws {
        let stored = entry("http://h/a", bytes: 500)
        let first = ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        first.store(stored)
        XCTAssertGreaterThan(first.currentDiskUsage, 500)
        let second = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        XCTAssertEqual(second.currentDiskUsage, first.currentDiskUsage)
        XCTAssertEqual(second.entry(forKey: "http://h/a"), stored)
        XCTAssertGreaterThan(second.currentMemoryUsage, 0, "a disk hit is kept in memory too")
    }

    func testThatATruncatedOrAlteredFileIsDroppedNeverServed() throws {
        for damage in ["truncate", "flip", "empty", "garbage"] {
            let cache = ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
            cache.store(entry("http://h/\(damage)", bytes: 300))
            let file = directory.appendingPathComponent(DiskTier.fileName(forKey: "http://h/\(damage)"))
            var bytes = try Data(contentsOf: file)
            switch damage {
            case "truncate": bytes = bytes.prefix(bytes.count - 10)
            case "flip": bytes[bytes.count / 2] ^= 0x01
            case "empty": bytes = Data()
            default: bytes = Data((0..<200).map { UInt8($0) })
            }
            try bytes.write(to: file)
            let reopened = ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
            XCTAssertNil(reopened.entry(forKey: "http://h/\(damage)"), damage)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "\(damage): the damaged file is removed")
            XCTAssertEqual(reopened.currentDiskUsage, 0, damage)
        }
    }

    func testThatTheCodecRoundTripsAndRejectsAForeignKey() throws {
        let stored = entry("http://h/x", bytes: 10)
        let data = try XCTUnwrap(DiskEntryCodec.encode(stored))
        XCTAssertEqual(DiskEntryCodec.decode(data), stored)
        XCTAssertNil(DiskEntryCodec.decode(data.prefix(data.count - 1)))
        // A valid file for another key placed under this key's name is not served for this key.
        let cache = ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        cache.store(stored)
        let other = directory.appendingPathComponent(DiskTier.fileName(forKey: "http://h/y"))
        try FileManager.default.copyItem(at: directory.appendingPathComponent(DiskTier.fileName(forKey: "http://h/x")), to: other)
        let reopened = ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        XCTAssertNil(reopened.entry(forKey: "http://h/y"))
        XCTAssertEqual(reopened.entry(forKey: "http://h/x"), stored)
    }

    func testThatTheDiskTierEvictsToCapacityAndLeavesNoTemporaryFiles() throws {
        let cache = ResponseCache(memoryCapacity: 0, diskCapacity: 5_000, directory: directory)
        for index in 0..<10 { cache.store(entry("http://h/\(index)", bytes: 1_000)) }
        XCTAssertLessThanOrEqual(cache.currentDiskUsage, 5_000)
        XCTAssertNil(cache.entry(forKey: "http://h/0"), "oldest evicted")
        XCTAssertNotNil(cache.entry(forKey: "http://h/9"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertFalse(names.contains { $0.hasSuffix(".tmp") })
    }

    func testThatConcurrentStoresAndReadsOfOneURLNeverServeAMixedEntry() {
        let cache = ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 22, directory: directory)
        let versions = (0..<8).map { entry("http://h/same", bytes: 1_000 + $0) }
        let foreign = Mutex(0) // reads that matched no stored version; asserted on the test's thread
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            if index % 2 == 0 {
                cache.store(versions[index % versions.count])
            } else if let read = cache.entry(forKey: "http://h/same"), !versions.contains(read) {
                foreign.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(foreign.withLock { $0 }, 0)
        XCTAssertNotNil(cache.entry(forKey: "http://h/same"))
    }

    func testThatRemoveAllAndRemoveResponseEmptyBothTiers() {
        let cache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        cache.store(entry(CacheFixture.url.absoluteString, bytes: 100))
        cache.store(entry("http://h/other", bytes: 100))
        cache.removeResponse(for: URLRequest(url: CacheFixture.url))
        XCTAssertNil(cache.cachedResponse(for: URLRequest(url: CacheFixture.url)))
        XCTAssertNotNil(cache.cachedResponse(for: URLRequest(url: URL(string: "http://h/other")!)))
        cache.removeAll()
        XCTAssertEqual(cache.currentMemoryUsage, 0)
        XCTAssertEqual(cache.currentDiskUsage, 0)
    }
}
