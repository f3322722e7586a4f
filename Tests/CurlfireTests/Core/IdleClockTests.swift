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

    func testThatALimitBeyondLibcurlsMaximumIsThatMaximum() {
        // The idle clock is the only idle timer (no CURLOPT_LOW_SPEED_*): a huge timeoutInterval is
        // RequestTimeLimits.clamped's maximum (about 23 days), as libcurl's timer was, not no limit.
        for seconds in [1e9, 1e12, Double.greatestFiniteMagnitude] {
            var clock = IdleClock(seconds: seconds)
            XCTAssertEqual(clock.limit, 2_000_000 * 1_000_000_000, "\(seconds)")
            clock.touch()
            XCTAssertFalse(clock.hasExpired(at: IdleClock.now() + 1_999_999 * 1_000_000_000), "\(seconds)")
            XCTAssertTrue(clock.hasExpired(at: IdleClock.now() + 2_000_001 * 1_000_000_000), "\(seconds)")
        }
        XCTAssertEqual(IdleClock(seconds: 60).limit, 60_000_000_000)
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
