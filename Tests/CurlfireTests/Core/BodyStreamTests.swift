@testable import Curlfire
import Foundation
import XCTest

/// The streamed request body's buffer (Bodies/BodyStream.swift) without libcurl: what the read
/// callback gets, when the producer waits, and when the transfer is woken.
final class BodyStreamTests: XCTestCase {
    /// A producer that never runs by itself: the tests feed the stream by hand.
    /// Streams made by ``makeStream(length:capacity:)``, cancelled after each test.
    private var streams: [BodyStream] = []

    /// A stream whose producer, once begun, never ends on its own: one that returned at once would
    /// finish the stream in its task, racing the test's own appends (seen under ThreadSanitizer).
    private func makeStream(length: Int64? = nil, capacity: Int = 8) -> BodyStream {
        let stream = BodyStream(producer: .sequence { _ in try await Task.sleep(for: .seconds(3600)) }, length: length,
                                capacity: capacity)
        streams.append(stream)
        return stream
    }

    override func tearDown() {
        for stream in streams { stream.cancel() }
        streams.removeAll()
        super.tearDown()
    }

    /// Counts wake-ups.
    private final class Wakes: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    private func read(_ stream: BodyStream, capacity: Int = 64) -> (BodyStream.ReadResult, [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let result = buffer.withUnsafeMutableBytes { stream.read(into: $0.baseAddress!, capacity: capacity) }
        if case let .bytes(count) = result { return (result, Array(buffer[0..<count])) }
        return (result, [])
    }

    func testThatAnEmptyBufferAsksToWaitAndTheNextChunkWakesTheTransferOnce() {
        let stream = BodyStream(producer: .inputStream(InputStream(data: Data())), length: nil, capacity: 8)
        let wakes = Wakes()
        // Not begun: the producer thread is not started, the test plays its part.
        XCTAssertEqual(read(stream).0, .wait)
        XCTAssertTrue(stream.appendBlocking(Data([1, 2, 3])))
        XCTAssertEqual(wakes.count, 0, "no wake function before begin")
        let fed = makeStream()
        XCTAssertNil(fed.begin(wake: { wakes.add() }))
        XCTAssertEqual(read(fed).0, .wait)
        XCTAssertTrue(fed.appendBlocking(Data([1, 2, 3])))
        XCTAssertTrue(fed.appendBlocking(Data([4])))
        XCTAssertEqual(wakes.count, 1, "one wake per wait")
        let (result, bytes) = read(fed)
        XCTAssertEqual(result, .bytes(4))
        XCTAssertEqual(bytes, [1, 2, 3, 4])
        fed.finish()
        XCTAssertEqual(read(fed).0, .end)
    }

    func testThatReadsSpanChunksAndStopAtTheCallersCapacity() {
        let stream = makeStream(capacity: 100)
        XCTAssertTrue(stream.appendBlocking(Data([1, 2, 3])))
        XCTAssertTrue(stream.appendBlocking(Data([4, 5, 6, 7])))
        XCTAssertEqual(read(stream, capacity: 5).1, [1, 2, 3, 4, 5])
        XCTAssertEqual(read(stream, capacity: 5).1, [6, 7])
    }

    func testThatAProducerWaitsWhileTheBufferIsFullUntilARead() {
        let stream = makeStream(capacity: 4)
        XCTAssertTrue(stream.appendBlocking(Data([1, 2, 3, 4])))
        let appended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = stream.appendBlocking(Data([5]))
            appended.signal()
        }
        XCTAssertEqual(appended.wait(timeout: .now() + 0.2), .timedOut, "the producer waits while 4 bytes are buffered")
        XCTAssertEqual(read(stream, capacity: 2).1, [1, 2])
        XCTAssertEqual(appended.wait(timeout: .now() + 5), .success, "a read made room")
        XCTAssertEqual(read(stream).1, [3, 4, 5])
    }

    func testThatCancelReleasesAWaitingProducerAndRefusesMore() {
        let stream = makeStream(capacity: 1)
        XCTAssertTrue(stream.appendBlocking(Data([1])))
        let result = LockedValue<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let accepted = stream.appendBlocking(Data([2]))
            result.withLock { $0 = accepted }
            done.signal()
        }
        stream.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(result.withLock { $0 }, false)
        guard case .failed(.explicitlyCancelled) = read(stream).0 else { return XCTFail("a cancelled stream fails") }
    }

    func testThatAnAsyncProducerWaitsWithoutBlockingAndIsReleasedByARead() async {
        let stream = makeStream(capacity: 2)
        XCTAssertTrue(stream.appendBlocking(Data([1, 2])))
        let task = Task { await stream.append(Data([3])) }
        XCTAssertEqual(read(stream).1, [1, 2])
        let accepted = await task.value
        XCTAssertTrue(accepted)
        XCTAssertEqual(read(stream).1, [3])
    }

    func testThatADeclaredLengthMustBeProducedExactly() {
        let short = makeStream(length: 5, capacity: 100)
        XCTAssertTrue(short.appendBlocking(Data([1, 2])))
        short.finish()
        guard case .failed(.bodyStreamFailed(.lengthMismatch(5, 2))) = read(short).0 else {
            return XCTFail("a short stream fails")
        }
        let long = makeStream(length: 2, capacity: 100)
        XCTAssertFalse(long.appendBlocking(Data([1, 2, 3])), "the producer stops at once")
        guard case .failed(.bodyStreamFailed(.lengthMismatch(2, 3))) = read(long).0 else {
            return XCTFail("a long stream fails")
        }
    }

    func testThatAProducerFailureWinsOverBufferedBytes() {
        struct Broken: Error {}
        let stream = makeStream(capacity: 100)
        XCTAssertTrue(stream.appendBlocking(Data([1])))
        stream.finish(failure: .bodyStreamFailed(reason: .producerFailed(error: Broken())))
        guard case let .failed(error) = read(stream).0 else { return XCTFail("the failure is reported") }
        XCTAssertTrue(error.underlyingError is Broken)
    }

    func testThatAStreamBeginsOnceAndRewindsOnlyBeforeItsFirstByte() {
        let stream = makeStream(capacity: 100)
        XCTAssertNil(stream.begin(wake: {}))
        guard case .bodyStreamFailed(.notReplayable)? = stream.begin(wake: {}) else {
            return XCTFail("a second begin is refused")
        }
        XCTAssertTrue(stream.canRewind(to: 0))
        XCTAssertTrue(stream.appendBlocking(Data([1, 2])))
        XCTAssertTrue(stream.canRewind(to: 0), "nothing was handed to libcurl yet")
        _ = read(stream, capacity: 1)
        XCTAssertFalse(stream.canRewind(to: 0))
        XCTAssertFalse(makeStream().canRewind(to: 5))
    }
}
