import Curlfire
import CurlfireCLIKit
import Foundation
import XCTest

/// Progress bar, byte counts, response head and timeline text.
final class FormattingTests: XCTestCase {
    func testThatTheBarFitsItsWidthAndShowsProgress() {
        let bar = ProgressBar(width: 80)
        let half = bar.line(received: 50_000, total: 100_000, speed: 25_000, elapsed: 2)
        XCTAssertEqual(half.count, 80, half)
        XCTAssertTrue(half.hasPrefix(" 50% ["), half)
        XCTAssertTrue(half.contains("50.0 kB / 100.0 kB"), half)
        XCTAssertTrue(half.contains("25.0 kB/s"), half)
        XCTAssertTrue(half.hasSuffix("ETA 0:02"), half)
        let full = bar.line(received: 100_000, total: 100_000, speed: 25_000, elapsed: 4)
        XCTAssertTrue(full.hasPrefix("100% [" + String(repeating: "=", count: 10)), full)
        XCTAssertFalse(full.contains(">"), full)
        XCTAssertEqual(ProgressBar(width: 60).line(received: 0, total: 10, speed: 0, elapsed: 0).count, 60)
    }

    func testThatAnUnknownTotalShowsBytesSpeedAndTime() {
        XCTAssertEqual(ProgressBar().line(received: 1_500_000, total: nil, speed: 3_000_000, elapsed: 65),
                       "1.5 MB  3.0 MB/s  1:05")
    }

    func testThatTheSummarySaysWhatWasResumed() {
        XCTAssertEqual(ProgressBar.summary(received: 2_000, resumedFrom: 1_000, elapsed: 0.5, destination: "f"),
                       "Done. 2.0 kB in 0.50s, 2.0 kB/s (resumed from byte 1000): f")
    }

    func testThatByteCountsUseDecimalUnits() {
        XCTAssertEqual(ByteCount.format(999), "999 B")
        XCTAssertEqual(ByteCount.format(1_000), "1.0 kB")
        XCTAssertEqual(ByteCount.format(67_108_864), "67.1 MB")
        XCTAssertEqual(ByteCount.format(3_400_000_000), "3.4 GB")
    }

    func testThatTheHeadHasAStatusLineAndHeaders() {
        let plain = ResponseHeadText.format(httpVersion: "HTTP/2", statusCode: 404, reason: ReasonPhrase.for(404),
                                            headers: [("A", "1"), ("B", "x y")], colors: false)
        XCTAssertEqual(plain, "HTTP/2 404 Not Found\nA: 1\nB: x y\n")
        let coloured = ResponseHeadText.format(httpVersion: "1.1", statusCode: 200, reason: "OK", headers: [("A", "1")], colors: true)
        XCTAssertEqual(coloured, ANSIStyle.success.wrap("HTTP/1.1 200 OK") + "\n" + ANSIStyle.headerName.wrap("A") + ": 1\n")
    }

    func testThatTheTimelineListsTimelineAndMetricsFields() {
        let timeline = Timeline(requestStartTime: 10, initialResponseTime: 10.25, requestCompletedTime: 10.5,
                                serializationCompletedTime: 10.5)
        let text = TimelineText.format(timeline: timeline, metrics: nil)
        XCTAssertTrue(text.hasPrefix("Timeline:\n"), text)
        XCTAssertTrue(text.contains("latency                 250.000 ms"), text)
        XCTAssertTrue(text.contains("request duration        500.000 ms"), text)
        XCTAssertFalse(text.contains("Metrics:"), text)
    }
}
