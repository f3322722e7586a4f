@testable import Curlfire
internal import CCurl
import Foundation
import XCTest

/// Which failed attempts the engine sends again unseen (UnprocessedStreamReplay): only libcurl's
/// two reports of an HTTP/2 stream the server never processed, and only when nothing was received.
final class UnprocessedStreamReplayTests: XCTestCase {
    private func unprocessed(_ code: CURLcode, _ message: String, headComplete: Bool = false, mayBeHTTP2: Bool = true,
                             received: Int64 = 0) -> Bool {
        UnprocessedStreamReplay.isUnprocessed(.transportError(code: code, message: message, headComplete: headComplete),
                                              mayBeHTTP2: mayBeHTTP2, receivedBytes: received)
    }

    func testThatLibcurlsTwoReportsOfAnUnsentStreamAreReplayed() {
        XCTAssertTrue(unprocessed(CURLE_HTTP2, "Error in the HTTP2 framing layer"))
        XCTAssertTrue(unprocessed(CURLE_RECV_ERROR, "Connection died, tried 5 times before giving up"))
        XCTAssertTrue(unprocessed(CURLE_SEND_ERROR, "Connection died, tried 5 times before giving up"))
    }

    func testThatAnythingReceivedOrADetailedErrorIsNeverReplayed() {
        XCTAssertFalse(unprocessed(CURLE_HTTP2, "Error in the HTTP2 framing layer", headComplete: true))
        XCTAssertFalse(unprocessed(CURLE_HTTP2, "Error in the HTTP2 framing layer", received: 1))
        XCTAssertFalse(unprocessed(CURLE_HTTP2, "Error in the HTTP2 framing layer", mayBeHTTP2: false))
        XCTAssertFalse(unprocessed(CURLE_RECV_ERROR, "Connection died, tried 5 times before giving up", mayBeHTTP2: false))
        XCTAssertFalse(unprocessed(CURLE_HTTP2, "h2_process_pending_input: nghttp2_session_mem_recv() returned -505"))
        XCTAssertFalse(unprocessed(CURLE_HTTP2_STREAM, "HTTP/2 stream 1 was not closed cleanly: CANCEL (err 8)"))
        XCTAssertFalse(unprocessed(CURLE_RECV_ERROR, "Recv failure: Connection reset by peer"))
        XCTAssertFalse(unprocessed(CURLE_GOT_NOTHING, "Empty reply from server"))
        XCTAssertFalse(UnprocessedStreamReplay.isUnprocessed(.idleTimeout(seconds: 1), mayBeHTTP2: true, receivedBytes: 0))
        XCTAssertFalse(UnprocessedStreamReplay.isUnprocessed(.cancelled, mayBeHTTP2: true, receivedBytes: 0))
    }
}
