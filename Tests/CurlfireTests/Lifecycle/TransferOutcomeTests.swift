@testable import Curlfire
import Foundation
import XCTest

/// A transfer's outcome keeps its fields in a box shared by its copies: a change to one copy is not
/// seen by the others, whichever copy changes, and every field keeps what was set. No network.
final class TransferOutcomeTests: XCTestCase {
    private func outcome() -> TransferOutcome {
        Transfer.failedOutcome(.explicitlyCancelled, request: URLRequest(url: URL(string: "http://127.0.0.1:1/a")!))
    }

    private func assertCancelled(_ error: CurlfireError?, line: UInt = #line) {
        guard case .explicitlyCancelled? = error else { return XCTFail("expected explicitlyCancelled, got \(String(describing: error))", line: line) }
    }

    func testThatAChangedCopyLeavesTheOtherCopiesAsTheyWere() {
        let original = outcome()
        var changed = original
        changed.data = Data("body".utf8)
        changed.error = nil
        changed.receivedBodyBytes = 4
        changed.cacheStatus = .hit
        changed.discardsResumeData = true
        XCTAssertNil(original.data)
        assertCancelled(original.error)
        XCTAssertEqual(original.receivedBodyBytes, 0)
        XCTAssertEqual(original.cacheStatus, .network)
        XCTAssertFalse(original.discardsResumeData)
        XCTAssertEqual(changed.data, Data("body".utf8))
        XCTAssertNil(changed.error)
        XCTAssertEqual(changed.receivedBodyBytes, 4)
        XCTAssertEqual(changed.cacheStatus, .hit)
        XCTAssertTrue(changed.discardsResumeData)
    }

    func testThatChangingTheOriginalLeavesAnEarlierCopyAsItWas() {
        var original = outcome()
        let copy = original
        original.uploadedBodyBytes = 10
        original.request = URLRequest(url: URL(string: "http://127.0.0.1:1/b")!)
        XCTAssertEqual(copy.uploadedBodyBytes, 0)
        XCTAssertEqual(copy.request?.url?.path, "/a")
        XCTAssertEqual(original.uploadedBodyBytes, 10)
        XCTAssertEqual(original.request?.url?.path, "/b")
    }

    func testThatAnOutcomeHeldAloneIsChangedInPlaceAndKeepsEveryChange() {
        var alone = outcome()
        for count in 1...100 { alone.receivedBodyBytes = Int64(count) }
        alone.timeline = Timeline(requestStartTime: 1, initialResponseTime: 2, requestCompletedTime: 3,
                                  serializationCompletedTime: 4)
        XCTAssertEqual(alone.receivedBodyBytes, 100)
        XCTAssertEqual(alone.timeline.requestCompletedTime, 3)
        assertCancelled(alone.error)
    }
}
