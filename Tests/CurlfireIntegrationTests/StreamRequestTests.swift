import Curlfire
import Foundation
import XCTest

/// StreamRequest: chunks as they arrive (closure and AsyncSequence), back-pressure, cancellation.
final class StreamRequestTests: XCTestCase {
    func testThatTheClosureFormDeliversEveryLineThenTheCompletion() async throws {
        let chunks = Recorder<Data>()
        let completion = ResponseWaiter<StreamRequest.Completion>()
        let afterCompletion = Recorder<Int>()
        Curlfire.streamRequest(try Live.httpbin("/stream/100")).responseStream { stream in
            switch stream.event {
            case let .stream(chunk):
                if !completion.isFulfilled { chunks.append(chunk) } else { afterCompletion.append(1) }
            case let .complete(done): completion.fulfil(done)
            }
        }
        let done = await completion.value
        XCTAssertNil(done.error)
        XCTAssertEqual(done.response?.statusCode, 200)
        XCTAssertNotNil(done.metrics)
        XCTAssertGreaterThanOrEqual(done.timeline.requestCompletedTime, done.timeline.requestStartTime)
        let body = chunks.all.reduce(Data(), +)
        let lines = body.split(separator: UInt8(ascii: "\n"))
        XCTAssertEqual(lines.count, 100)
        XCTAssertGreaterThanOrEqual(done.metrics?.bytesReceived ?? 0, Int64(body.count))
        XCTAssertTrue(afterCompletion.all.isEmpty, "the completion is the last event")
    }

    func testThatTheAsyncFormYieldsEveryLine() async throws {
        let stream = Curlfire.streamRequest(try Live.httpbin("/stream/100")).streamingData()
        var body = Data()
        for try await chunk in stream { body.append(chunk) }
        XCTAssertEqual(body.split(separator: UInt8(ascii: "\n")).count, 100)
        let completion = await stream.completion
        XCTAssertEqual(completion.response?.statusCode, 200)
    }

    func testThatDripChunksArriveWhileTheTransferRuns() async throws {
        let started = Date()
        var arrivals: [TimeInterval] = []
        var total = 0
        for try await chunk in Curlfire.streamRequest(try Live.httpbin("/drip?duration=2&numbytes=8&delay=0")).streamingData() {
            arrivals.append(Date().timeIntervalSince(started))
            total += chunk.count
        }
        XCTAssertEqual(total, 8)
        XCTAssertGreaterThanOrEqual(arrivals.count, 4, "bytes come in pieces: \(arrivals)")
        let first = try XCTUnwrap(arrivals.first)
        let last = try XCTUnwrap(arrivals.last)
        XCTAssertGreaterThan(last - first, 1.0, "the first chunk arrived long before the last: \(arrivals)")
    }

    func testThatASlowConsumerPausesTheTransferInsteadOfGrowingMemory() async throws {
        let servers = try Live.servers()
        let url = try XCTUnwrap(servers.nginxHTTP).appendingPathComponent("large.bin")
        let size = try XCTUnwrap(servers.largeFileSize)
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let stream = SessionManager().streamRequest(url, maximumBufferedBytes: 1 << 20).streamingData()
        let started = Date()
        var total = 0
        for try await chunk in stream {
            total += chunk.count
            // Slow for the first 1.5 s: long enough for nginx to send everything if nothing paused.
            if Date().timeIntervalSince(started) < 1.5 { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        XCTAssertEqual(total, size)
        XCTAssertLessThan(growth, 16 * 1024, "peak memory grew by \(growth) KiB streaming \(size >> 20) MiB slowly")
        print("slow \(size >> 20) MiB stream: peak RSS growth \(growth) KiB")
    }

    func testThatCancellingTheIteratingTaskCancelsTheTransfer() async throws {
        let stream = Curlfire.streamRequest(try Live.httpbin("/drip?duration=5&numbytes=5&delay=0")).streamingData()
        let firstChunk = XCTestExpectation(description: "first chunk iterated")
        let task = Task {
            var received = 0
            for try await chunk in stream {
                if received == 0 { firstChunk.fulfill() }
                received += chunk.count
            }
            return received
        }
        await fulfillment(of: [firstChunk], timeout: 5) // the task is iterating mid-transfer
        task.cancel()
        let started = Date()
        let result = await task.result
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5, "the transfer stopped promptly")
        guard case let .failure(error) = result, case .explicitlyCancelled? = error as? CurlfireError else {
            return XCTFail("\(result)")
        }
        let completion = await stream.completion
        XCTAssertNotNil(completion.error)
    }

    func testThatAbandoningTheIterationCancelsTheTransfer() async throws {
        let stream = Curlfire.streamRequest(try Live.httpbin("/drip?duration=5&numbytes=5&delay=0")).streamingData()
        for try await _ in stream { break }
        let started = Date()
        let completion = await stream.completion
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        guard case .explicitlyCancelled? = completion.error else { return XCTFail("\(String(describing: completion.error))") }
    }
}
