@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The objects an attempt's result is made of are allocated when the attempt is taken (on the
/// caller's thread) and filled by the engine in place (ResultSpares.swift). No network.
final class ResultSparesTests: XCTestCase {
    private func head(_ lines: [String]) -> ResponseHead {
        var head = ResponseHead()
        head.reserveBuffer()
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            bytes.withUnsafeBufferPointer { head.consume($0) }
        }
        return head
    }

    func testThatTheSpareResponseIsUsedOnceAndReadsLikeANewOne() throws {
        let url = try XCTUnwrap(URL(string: "http://example.test/items"))
        let filled = head(["HTTP/1.1 201 Created", "Content-Type: application/json", "X-Id: 7", "x-id: 8", ""])
        var spares = ResultSpares()
        spares.prepare()
        let first = spares.takeResponse(head: filled, url: url)
        let second = spares.takeResponse(head: filled, url: url) // no spare left: a new object
        XCTAssertFalse(first === second, "the spare is handed out once")
        let reference = LazyResponse(head: filled, url: url)
        for response in [first, second] {
            XCTAssertEqual(response.statusCode, 201)
            XCTAssertEqual(response.headerValue("x-id"), reference.headerValue("X-Id"))
            XCTAssertEqual(response.headerValue("X-Id"), "7, 8")
            XCTAssertEqual(response.response?.statusCode, 201)
            XCTAssertEqual(response.response?.url, url)
            XCTAssertEqual(response.response?.value(forHTTPHeaderField: "content-type"), "application/json")
        }
        spares.prepare() // the attempt's next request gets a new spare
        XCTAssertFalse(spares.takeResponse(head: filled, url: url) === first)
    }

    func testThatTheSpareMetricsAreFilledInTheirOwnBox() throws {
        var spares = ResultSpares()
        spares.prepare()
        var metrics = spares.takeMetrics()
        let box = metrics.storageIdentity
        metrics.effectiveURL = URL(string: "http://example.test/")
        metrics.totalDuration = 0.25
        metrics.httpVersion = "HTTP/1.1"
        metrics.remotePort = 8080
        XCTAssertEqual(metrics.storageIdentity, box, "a spare held alone is written in place")
        XCTAssertEqual(metrics.totalDuration, 0.25)
        XCTAssertEqual(metrics.remotePort, 8080)
        // Held twice, the same write copies: the identity check can tell the two apart.
        let shared = metrics
        metrics.bytesSent = 10
        XCTAssertNotEqual(metrics.storageIdentity, shared.storageIdentity)
        XCTAssertEqual(shared.bytesSent, 0)
    }

    func testThatTheSpareOutcomeIsFilledInItsOwnBox() throws {
        var spares = ResultSpares()
        spares.prepare()
        var outcome = try XCTUnwrap(spares.takeOutcome())
        XCTAssertNil(spares.takeOutcome(), "the spare is handed out once")
        let box = outcome.boxIdentity
        outcome.data = Data("body".utf8)
        outcome.error = .explicitlyCancelled
        outcome.uploadedBodyBytes = 4
        XCTAssertEqual(outcome.boxIdentity, box, "a spare held alone is written in place")
        XCTAssertEqual(outcome.data, Data("body".utf8))
        XCTAssertEqual(outcome.cacheStatus, .network)
        XCTAssertNil(outcome.download)
        let shared = outcome
        outcome.receivedBodyBytes = 1
        XCTAssertNotEqual(outcome.boxIdentity, shared.boxIdentity)
    }

    /// An attempt hands its transfer the outcome spare it was taken with, even when it never ran.
    func testThatAnEndedAttemptCarriesItsOutcomeSpare() throws {
        let session = SessionManager()
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:1/spare"))
        let transfer = Transfer(session: session, definition: .init(urlRequest: .success(URLRequest(url: url))))
        let pool = AttemptPool()
        let attempt = pool.take(transfer: transfer, plan: AttemptPlan(request: URLRequest(url: url), body: .none,
                                                                      options: AttemptOptions()),
                                body: .none, sink: nil, startTime: 1, stage: .init(attempt: 1, hop: 0, generation: 1))
        let result = attempt.finish(ending: .cancelled)
        let spare = try XCTUnwrap(result.spareOutcome)
        XCTAssertNil(spare.data)
        XCTAssertNil(spare.lazyResponse)
        XCTAssertEqual(result.body?.count, 0, "its own memory sink's bytes, none")
    }
}
