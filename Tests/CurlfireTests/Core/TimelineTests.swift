@testable import Curlfire
import XCTest

final class TimelineTests: XCTestCase {
    func testThatDurationsAreDerivedFromTheFourTimes() {
        // Given
        let timeline = Timeline(requestStartTime: 100, initialResponseTime: 100.25, requestCompletedTime: 101,
                                serializationCompletedTime: 101.5)
        // Then
        XCTAssertEqual(timeline.latency, 0.25, accuracy: 1e-9)
        XCTAssertEqual(timeline.requestDuration, 1.0, accuracy: 1e-9)
        XCTAssertEqual(timeline.serializationDuration, 0.5, accuracy: 1e-9)
        XCTAssertEqual(timeline.totalDuration, 1.5, accuracy: 1e-9)
    }

    func testThatDescriptionUsesAlamofireFormatWithThreeDecimals() {
        let timeline = Timeline(requestStartTime: 0, initialResponseTime: 0.4281, requestCompletedTime: 0.5,
                                serializationCompletedTime: 0.5004)
        XCTAssertEqual(timeline.description,
                       "Timeline: { \"Latency\": 0.428 secs, \"Request Duration\": 0.500 secs, "
                           + "\"Serialization Duration\": 0.000 secs, \"Total Duration\": 0.500 secs }")
    }

    func testThatDebugDescriptionListsAbsoluteTimesFirst() {
        let timeline = Timeline(requestStartTime: 1, initialResponseTime: 2, requestCompletedTime: 3,
                                serializationCompletedTime: 4)
        XCTAssertTrue(timeline.debugDescription.hasPrefix("Timeline: { \"Request Start Time\": 1.0, \"Initial Response Time\": 2.0"))
        XCTAssertTrue(timeline.debugDescription.contains("\"Total Duration\": 3.000 secs }"))
    }

    func testThatSerializedKeepsRequestTimesAndMovesOnlySerialization() {
        let timeline = Timeline(requestStartTime: 1, initialResponseTime: 2, requestCompletedTime: 3,
                                serializationCompletedTime: 3).serialized(at: 5)
        XCTAssertEqual(timeline.requestCompletedTime, 3)
        XCTAssertEqual(timeline.serializationDuration, 2)
        XCTAssertEqual(timeline.totalDuration, 4)
    }
}
