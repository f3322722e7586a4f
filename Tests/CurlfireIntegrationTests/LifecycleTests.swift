import Curlfire
import Foundation
import XCTest

/// One transfer per request value, handler order, start/cancel/suspend/resume, async, concurrency.
final class LifecycleTests: XCTestCase {
    func testThatTwoHandlersOnOneRequestMakeOneTransferAndRunInAttachOrder() async throws {
        // Given
        let servers = try Live.servers()
        let marker = Live.marker()
        let order = Recorder<String>()
        let request = Curlfire.request(try Live.httpbin("/get?marker=\(marker)"))
        // When
        let both = ResponseWaiter<Void>()
        request.responseData { _ in order.append("data") }
            .validate()
            .responseJSON { _ in order.append("json") }
        let copy = request // a copy shares the transfer
        copy.response { _ in order.append("default"); both.fulfil(()) }
        await both.value
        // Then
        XCTAssertEqual(order.all, ["data", "json", "default"])
        let lines = servers.accessLogLines("httpbin", containing: marker)
        XCTAssertEqual(lines.count, 1, "one transfer for three handlers: \(lines)")
    }

    func testThatAHandlerAttachedAfterCompletionStillRunsWithTheSameResponse() async throws {
        let request = Curlfire.request(try Live.httpbin("/uuid"))
        let first = await awaitResponse { request.responseJSON(completionHandler: $0) }
        let second = await awaitResponse { request.responseJSON(completionHandler: $0) }
        XCTAssertEqual(first.data, second.data, "late handlers see the same transfer")
    }

    func testThatValidatorsAreCapturedPerHandler() async throws {
        let request = Curlfire.request(try Live.httpbin("/status/418"))
        let unvalidated = await awaitResponse { request.response(completionHandler: $0) }
        let validated = request.validate()
        let checked = await awaitResponse { validated.response(completionHandler: $0) }
        XCTAssertNil(unvalidated.error)
        XCTAssertEqual(checked.error?.responseCode, 418)
    }

    func testThatStartRequestsImmediatelyFalseWaitsForResume() async throws {
        let session = SessionManager()
        session.startRequestsImmediately = false
        let servers = try Live.servers()
        let marker = Live.marker()
        let request = session.request(try Live.httpbin("/get?marker=\(marker)"))
        let waiter = ResponseWaiter<DefaultDataResponse>()
        request.response { waiter.fulfil($0) }
        // A barrier instead of a pause: a later request on the same session, resumed and answered.
        // Had the first one been started it would have reached the server before this one.
        let barrierMarker = Live.marker()
        let barrier = session.request(try Live.httpbin("/get?marker=\(barrierMarker)"))
        barrier.resume()
        let barrierResponse = await barrier.serializingData().response
        XCTAssertEqual(barrierResponse.response?.statusCode, 200, barrierResponse.debugDescription)
        XCTAssertEqual(servers.accessLogLines("httpbin", containing: barrierMarker).count, 1, "the barrier was logged")
        XCTAssertFalse(waiter.isFulfilled, "no response before resume()")
        XCTAssertTrue(servers.accessLogLines("httpbin", containing: marker, timeout: 0).isEmpty, "nothing sent before resume()")
        request.resume()
        let response = await waiter.value
        XCTAssertEqual(response.response?.statusCode, 200)
    }

    func testThatCancellingMidTransferGivesExplicitlyCancelled() async throws {
        // Mid-transfer for certain: the head and a first body byte of a 5-second drip have arrived.
        let request = Curlfire.request(try Live.httpbin("/drip?duration=5&numbytes=5&delay=0"))
        let firstByte = FirstByte()
        request.downloadProgress { firstByte.seen($0) }
        let waiter = ResponseWaiter<DataResponse<Data>>()
        request.responseData { waiter.fulfil($0) }
        await fulfillment(of: [firstByte.expectation], timeout: 5)
        let started = Date()
        request.cancel()
        let response = await waiter.value
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(response.response?.statusCode, 200, "the head had arrived")
        guard case .explicitlyCancelled? = response.error else { return XCTFail("\(response.debugDescription)") }
    }

    func testThatCancellingBeforeStartGivesExplicitlyCancelledWithoutSending() async throws {
        let request = Curlfire.request(try Live.httpbin("/get")).cancel()
        let response = await awaitResponse { request.responseData(completionHandler: $0) }
        guard case .explicitlyCancelled? = response.error else { return XCTFail("\(response.debugDescription)") }
        XCTAssertNil(response.response)
    }

    func testThatSuspendPausesAndResumeContinues() async throws {
        let request = Curlfire.request(try Live.httpbin("/drip?numbytes=6&duration=1.2&delay=0"))
        let waiter = ResponseWaiter<DataResponse<Data>>()
        // The 1.2 s drip must not complete while suspended: an inverted expectation over 1.8 s says
        // so explicitly (this window is the behaviour under test, not a synchronisation guess).
        let completedWhileSuspended = XCTestExpectation(description: "completed while suspended")
        completedWhileSuspended.isInverted = true
        request.responseData { completedWhileSuspended.fulfill(); waiter.fulfil($0) }
        request.suspend()
        await fulfillment(of: [completedWhileSuspended], timeout: 1.8)
        let resumedAt = Date()
        request.resume()
        let response = await waiter.value
        XCTAssertEqual(response.value?.count, 6)
        XCTAssertGreaterThan(response.timeline.requestCompletedTime - resumedAt.timeIntervalSinceReferenceDate, 0,
                             "the transfer completed only after resume()")
    }

    func testThatAsyncSerializingReturnsValuesAndResponses() async throws {
        struct UUIDBody: Decodable, Sendable { let uuid: String }
        let value = try await Curlfire.request(try Live.httpbin("/uuid")).validate().serializingDecodable(UUIDBody.self).value
        XCTAssertEqual(value.uuid.count, 36)
        let string = try await Curlfire.request(try Live.httpbin("/robots.txt")).serializingString().value
        XCTAssertTrue(string.contains("Disallow"))
        let data = await Curlfire.request(try Live.httpbin("/bytes/1024")).serializingData().response
        XCTAssertEqual(data.value?.count, 1024)
        let json = try await Curlfire.request(try Live.httpbin("/get")).serializingJSON().value
        XCTAssertNotNil((json as? [String: Any])?["url"])
    }

    func testThatAsyncErrorsAreThrownAsCurlfireError() async throws {
        do {
            _ = try await Curlfire.request(try Live.httpbin("/status/500")).validate().serializingData().value
            XCTFail("expected a throw")
        } catch let error as CurlfireError {
            XCTAssertEqual(error.responseCode, 500)
        }
    }

    func testThatCancellingTheSwiftTaskCancelsTheTransfer() async throws {
        let request = Curlfire.request(try Live.httpbin("/drip?duration=5&numbytes=5&delay=0"))
        let firstByte = FirstByte()
        request.downloadProgress { firstByte.seen($0) }
        let task = Task { await request.serializingData().response }
        await fulfillment(of: [firstByte.expectation], timeout: 5)
        let started = Date()
        task.cancel()
        let response = await task.value
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        guard case .explicitlyCancelled? = response.error else { return XCTFail("\(response.debugDescription)") }
    }

    func testThatTwoHundredConcurrentRequestsAllComplete() async throws {
        let session = SessionManager()
        let url = try Live.httpbin("/get")
        let results = await withTaskGroup(of: Int?.self, returning: [Int?].self) { group in
            for index in 0..<200 {
                group.addTask { await session.request(url, parameters: ["i": index]).validate().serializingData().response.response?.statusCode }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 200)
        XCTAssertEqual(results.filter { $0 == 200 }.count, 200)
    }

    func testThatCompletionHandlersRunOnTheGivenQueueOrTheSessionCallbackQueue() async throws {
        let session = SessionManager()
        let key = DispatchSpecificKey<String>()
        session.callbackQueue.setSpecific(key: key, value: "session")
        let custom = DispatchQueue(label: "custom")
        custom.setSpecific(key: key, value: "custom")
        let url = try Live.httpbin("/get")
        let onSession = await awaitResponse { done in session.request(url).response { _ in done(DispatchQueue.getSpecific(key: key)) } }
        let onCustom = await awaitResponse { done in
            session.request(url).response(queue: custom) { _ in done(DispatchQueue.getSpecific(key: key)) }
        }
        XCTAssertEqual(onSession, "session")
        XCTAssertEqual(onCustom, "custom")
    }

    func testThatAReleasedSessionStopsItsEngineThread() async throws {
        let url = try Live.httpbin("/get")
        func engineThreads() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .hasPrefix("curlfire-engine") == true }.count
        }
        // Sessions released by earlier tests may still be stopping their threads (some seconds
        // later, once their last transfer ends), and no thread here is told from another. So this
        // session's thread is counted while it runs, and the count must fall below that after it
        // is released: with no thread ending, it could not.
        var during = 0
        do {
            let session = SessionManager()
            let response = await session.request(url).serializingData().response
            XCTAssertEqual(response.response?.statusCode, 200)
            during = engineThreads()
            XCTAssertGreaterThanOrEqual(during, 1)
        }
        for _ in 0..<50 where engineThreads() >= during { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertLessThan(engineThreads(), during, "the engine thread must exit with its session")
    }
}
