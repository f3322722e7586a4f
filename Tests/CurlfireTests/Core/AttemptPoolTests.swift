@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The engine's pool of ended attempts: a recycled attempt keeps nothing of its request, and the next
/// attempt made through the pool is that object, filled as a new one would be. No network: the
/// attempts never reach libcurl.
final class AttemptPoolTests: XCTestCase {
    private func plan(_ url: String, timeout: TimeInterval = 60, credential: (user: String, password: String)? = nil)
        throws -> AttemptPlan {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.setValue("secret", forHTTPHeaderField: "X-Private")
        var options = AttemptOptions()
        options.requestTimeout = timeout
        options.credential = credential
        options.maximumDownloadBytesPerSecond = credential == nil ? nil : 1_000
        return AttemptPlan(request: request, body: .none, options: options)
    }

    private func transfer(_ session: SessionManager, _ url: String) throws -> Transfer {
        Transfer(session: session, definition: .init(urlRequest: .success(URLRequest(url: try XCTUnwrap(URL(string: url))))))
    }

    func testThatARecycledAttemptIsReusedAndKeepsNothingOfItsRequest() throws {
        let session = SessionManager()
        let pool = AttemptPool()
        let firstTransfer = try transfer(session, "http://127.0.0.1:1/first")
        let firstSink = MemorySink()
        let first = pool.take(transfer: firstTransfer, plan: try plan("http://127.0.0.1:1/first", timeout: 5,
                                                                      credential: ("user", "pass")),
                              body: .data(Data("body".utf8)), sink: firstSink, startTime: 1,
                              stage: .init(attempt: 2, hop: 1, generation: 3))
        first.deadline = 42
        first.replays = 1
        XCTAssertTrue(first.isPaced)
        XCTAssertEqual(pool.spareCount, 0)

        pool.recycle(first)
        XCTAssertEqual(pool.spareCount, 1)
        XCTAssertEqual(first.deadline, 0)
        XCTAssertEqual(first.replays, 0)
        XCTAssertNil(first.abortReason)
        XCTAssertFalse(first.isPaced)
        XCTAssertEqual(first.paceHeldUntil, 0)
        XCTAssertNil(first.easy)
        XCTAssertNil(first.pooledHandle)
        XCTAssertNil(first.live)
        XCTAssertTrue(first.reader.body.isEmpty, "the body reader of the request before is gone")
        // The transfer and the sink are no longer held by the pooled attempt.
        weak let weakSink = firstSink
        _ = consume firstSink
        XCTAssertNil(weakSink, "a pooled attempt keeps its request's sink")

        let secondTransfer = try transfer(session, "http://127.0.0.1:1/second")
        let secondSink = MemorySink()
        let second = pool.take(transfer: secondTransfer, plan: try plan("http://127.0.0.1:1/second"), body: .none,
                               sink: secondSink, startTime: 2, stage: .init(attempt: 1, hop: 0, generation: 1))
        XCTAssertTrue(second === first, "the pooled object was reused")
        XCTAssertEqual(pool.spareCount, 0)
        XCTAssertTrue(second.transfer === secondTransfer)
        XCTAssertTrue(second.sink === secondSink)
        XCTAssertEqual(second.request.url?.path, "/second")
        XCTAssertNil(second.options.credential)
        XCTAssertEqual(second.options.requestTimeout, 60)
        XCTAssertFalse(second.isPaced)
        XCTAssertEqual(second.startTime, 2)
        XCTAssertEqual(second.stage, .init(attempt: 1, hop: 0, generation: 1))
        XCTAssertEqual(second.deadline, 0)
        XCTAssertEqual(second.replays, 0)
        XCTAssertTrue(second.reader.body.isEmpty, "no body on the reused attempt")
        withExtendedLifetime(firstTransfer) {}
    }

    func testThatAPooledAttemptKeepsItsMemorySinkButNotItsBody() throws {
        let session = SessionManager()
        let pool = AttemptPool()
        let firstTransfer = try transfer(session, "http://127.0.0.1:1/first")
        let first = pool.take(transfer: firstTransfer, plan: try plan("http://127.0.0.1:1/first"), body: .none,
                              sink: nil, startTime: 1, stage: .init(attempt: 1, hop: 0, generation: 1))
        XCTAssertTrue(first.usesOwnMemory, "no sink asked for: the attempt's own memory sink")
        let ownSink = first.sink
        XCTAssertTrue(ownSink is MemorySink)
        Data("first body".utf8).withUnsafeBytes { XCTAssertTrue(first.sink.write($0)) }
        let firstResult = first.finish(ending: .completed)
        XCTAssertNil(firstResult.sink, "the result references no pooled sink")
        XCTAssertEqual(firstResult.body, Data("first body".utf8))
        XCTAssertEqual(firstResult.receivedBodyBytes, 10)
        XCTAssertEqual(first.sink.byteCount, 0, "the bytes left the sink with the result")

        pool.recycle(first)
        let secondTransfer = try transfer(session, "http://127.0.0.1:1/second")
        let second = pool.take(transfer: secondTransfer, plan: try plan("http://127.0.0.1:1/second"), body: .none,
                               sink: nil, startTime: 2, stage: .init(attempt: 1, hop: 0, generation: 1))
        XCTAssertTrue(second === first)
        XCTAssertTrue(second.sink === ownSink, "the memory sink came back with its attempt: no allocation")
        XCTAssertEqual(second.sink.byteCount, 0)
        Data("second".utf8).withUnsafeBytes { XCTAssertTrue(second.sink.write($0)) }
        XCTAssertEqual(firstResult.body, Data("first body".utf8), "an earlier result does not change with the sink")
        XCTAssertEqual(second.finish(ending: .completed).body, Data("second".utf8))

        // A sink of the transfer's own (a download's file, a stream) is used instead, and stays in the result.
        pool.recycle(second)
        let explicit = MemorySink()
        let third = pool.take(transfer: secondTransfer, plan: try plan("http://127.0.0.1:1/third"), body: .none,
                              sink: explicit, startTime: 3, stage: .init(attempt: 1, hop: 0, generation: 1))
        XCTAssertFalse(third.usesOwnMemory)
        XCTAssertTrue(third.sink === explicit)
        let thirdResult = third.finish(ending: .completed)
        XCTAssertTrue(thirdResult.sink === explicit)
        XCTAssertNil(thirdResult.body)
        withExtendedLifetime((firstTransfer, secondTransfer)) {}
    }

    func testThatThePoolKeepsAtMostItsLimit() throws {
        let session = SessionManager()
        let pool = AttemptPool()
        let transfer = try transfer(session, "http://127.0.0.1:1/")
        let attempts = try (0..<(AttemptPool.limit + 3)).map { _ in
            CurlAttempt(transfer: transfer, plan: try plan("http://127.0.0.1:1/"), body: .none, sink: MemorySink(),
                        startTime: 0, stage: .init(attempt: 1, hop: 0, generation: 1))
        }
        for attempt in attempts { pool.recycle(attempt) }
        XCTAssertEqual(pool.spareCount, AttemptPool.limit)
    }
}
