@testable import Curlfire
import Foundation
import XCTest

/// `cancel()` is seen by libcurl's write callback at the very next chunk: one `curl_multi_perform`
/// can deliver many buffers before the engine thread handles its command queue.
final class CancelFlagTests: XCTestCase {
    func testThatTheWriteCallbackRefusesTheChunkAfterCancel() throws {
        let session = SessionManager()
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:1/never-started")))
        let transfer = Transfer(session: session, spec: .init(urlRequest: .success(request)))
        let plan = AttemptPlan(request: request, body: .none, options: TransferOptions())
        let attempt = CurlAttempt(transfer: transfer, plan: plan, body: .none, sink: MemorySink(),
                                  startTime: Date.timeIntervalSinceReferenceDate,
                                  stage: .init(attempt: 1, hop: 0, generation: 1))
        let chunk = [UInt8](repeating: 7, count: 16)
        let first = chunk.withUnsafeBytes { attempt.receiveBody($0) }
        XCTAssertEqual(first, .accepted)
        XCTAssertFalse(attempt.cancelled)
        transfer.cancel()
        let second = chunk.withUnsafeBytes { attempt.receiveBody($0) }
        XCTAssertEqual(second, .failed, "the chunk after cancel() is refused, which ends the transfer")
        XCTAssertTrue(attempt.cancelled, "so that it finishes as explicitlyCancelled, not as a write failure")
    }
}
