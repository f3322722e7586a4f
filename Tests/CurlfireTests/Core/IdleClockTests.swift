@testable import Curlfire
import XCTest

final class IdleClockTests: XCTestCase {
    func testThatTheClockOnlyRunsOnceBytesHaveMoved() {
        var clock = IdleClock(seconds: 1)
        let later = IdleClock.now() + 5_000_000_000
        XCTAssertFalse(clock.hasExpired(at: later), "before the first byte libcurl's own check applies")
        clock.touch()
        XCTAssertFalse(clock.hasExpired(at: IdleClock.now()))
        XCTAssertTrue(clock.hasExpired(at: later))
    }

    func testThatNoLimitNeverExpires() {
        for seconds in [0, -1, .infinity, .nan] as [TimeInterval] {
            var clock = IdleClock(seconds: seconds)
            clock.touch()
            XCTAssertFalse(clock.hasExpired(at: IdleClock.now() + 1_000_000_000_000), "\(seconds)")
        }
    }

    func testThatRestartOnlyCountsAfterTheFirstByte() {
        var clock = IdleClock(seconds: 0.5)
        clock.restart()
        XCTAssertFalse(clock.hasExpired(at: IdleClock.now() + 5_000_000_000), "restart before any byte starts nothing")
        clock.touch()
        usleep(20_000)
        clock.restart()
        XCTAssertFalse(clock.hasExpired(at: IdleClock.now() + 400_000_000))
        XCTAssertTrue(clock.hasExpired(at: IdleClock.now() + 600_000_000))
    }
}
