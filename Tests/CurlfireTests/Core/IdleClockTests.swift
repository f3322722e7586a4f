@testable import Curlfire
import XCTest

final class IdleClockTests: XCTestCase {
    func testThatTheClockRunsOnceStarted() {
        var clock = IdleClock(seconds: 1)
        let later = IdleClock.now() + 5_000_000_000
        XCTAssertFalse(clock.hasExpired(at: later), "an attempt that never entered libcurl is not timed")
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

    func testThatRestartStartsTheCountAfresh() {
        var clock = IdleClock(seconds: 0.5)
        clock.restart()
        XCTAssertFalse(clock.hasExpired(at: IdleClock.now() + 400_000_000))
        XCTAssertTrue(clock.hasExpired(at: IdleClock.now() + 600_000_000), "a transfer suspended before it began is timed from its resume")
        clock.touch()
        XCTAssertFalse(clock.hasExpired(at: IdleClock.now() + 400_000_000))
        XCTAssertTrue(clock.hasExpired(at: IdleClock.now() + 600_000_000))
    }
}
