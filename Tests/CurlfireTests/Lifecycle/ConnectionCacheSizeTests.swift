@testable import Curlfire
import XCTest

/// The engine's connection cache size (ConnectionCacheSize.swift): libcurl's four connections per
/// handle, applied to the most attempts ever in flight at once, set only when that grows.
final class ConnectionCacheSizeTests: XCTestCase {
    func testThatTheSizeGrowsWithThePeakAndNeverShrinks() {
        var size = ConnectionCacheSize()
        // (attempts in flight now, the size to set or nil)
        let table: [(Int, Int?)] = [(1, 4), (1, nil), (3, 12), (2, nil), (1, nil), (64, 256), (10, nil), (64, nil), (65, 260)]
        for (inFlight, expected) in table {
            XCTAssertEqual(size.attemptsInFlight(inFlight), expected, "\(inFlight) in flight")
        }
        XCTAssertEqual(size.peakInFlight, 65)
    }

    func testThatNoAttemptSetsNothing() {
        var size = ConnectionCacheSize()
        XCTAssertNil(size.attemptsInFlight(0))
        XCTAssertEqual(size.peakInFlight, 0)
    }
}
