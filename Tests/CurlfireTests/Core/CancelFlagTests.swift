@testable import Curlfire
internal import CCurl
import Foundation
import XCTest

/// `cancel()` is seen by libcurl's write callback at the very next chunk: one `curl_multi_perform`
/// can deliver many buffers before the engine thread handles its command queue.
///
/// The attempt's callbacks are engine-thread only (asserted in debug builds), so each test runs them
/// on the session's engine thread, lent through `Engine.Command.withShareHandle`.
final class CancelFlagTests: XCTestCase {
    func testThatTheWriteCallbackRefusesTheChunkAfterCancel() throws {
        let session = SessionManager()
        let (transfer, attempt) = try makeAttempt(session: session, sink: MemorySink())
        let chunk = [UInt8](repeating: 7, count: 16)
        let first = onEngineThread(session) { chunk.withUnsafeBytes { attempt.receiveBody($0) } }
        XCTAssertEqual(first, .accepted)
        XCTAssertNil(attempt.abortReason)
        transfer.cancel()
        let second = onEngineThread(session) { chunk.withUnsafeBytes { attempt.receiveBody($0) } }
        XCTAssertEqual(second, .failed, "the chunk after cancel() is refused, which ends the transfer")
        XCTAssertTrue(Self.isCancelled(attempt.abortReason), "so that it finishes as explicitlyCancelled, not as a write failure")
        // libcurl then reports the refused chunk as a write error; the recorded reason wins.
        let ending = onEngineThread(session) { attempt.ending(libcurlCode: CURLE_WRITE_ERROR) }
        XCTAssertTrue(Self.isCancelled(ending), "\(ending)")
    }

    func testThatASinkFailureIsRecordedWithItsErrorAndWinsOverTheWriteError() throws {
        let session = SessionManager()
        let sink = FailingSink(failure: .sessionTaskFailed(code: .writeFailed, message: "disk full"))
        let (_, attempt) = try makeAttempt(session: session, sink: sink)
        let chunk = [UInt8](repeating: 7, count: 16)
        let outcome = onEngineThread(session) { chunk.withUnsafeBytes { attempt.receiveBody($0) } }
        XCTAssertEqual(outcome, .failed)
        guard case let .sinkFailure(.sessionTaskFailed(code, message))? = attempt.abortReason else {
            return XCTFail("a sink failure, got \(String(describing: attempt.abortReason))")
        }
        XCTAssertEqual(code, .writeFailed)
        XCTAssertEqual(message, "disk full")
        let ending = onEngineThread(session) { attempt.ending(libcurlCode: CURLE_WRITE_ERROR) }
        guard case .sinkFailure = ending else { return XCTFail("the sink's error, not CURLE_WRITE_ERROR: \(ending)") }
        // Set once: a cancel seen after the sink failed does not replace the first reason.
        _ = onEngineThread(session) { chunk.withUnsafeBytes { attempt.receiveBody($0) } }
        guard case .sinkFailure? = attempt.abortReason else { return XCTFail("the first reason stays") }
    }

    func testThatNoReasonIsRecordedWhenNothingStopsTheTransfer() throws {
        let session = SessionManager()
        let (_, attempt) = try makeAttempt(session: session, sink: MemorySink())
        let ending = onEngineThread(session) { attempt.ending(libcurlCode: CURLE_OK) }
        guard case .completed = ending else { return XCTFail("completed: \(ending)") }
        let failed = onEngineThread(session) { attempt.ending(libcurlCode: CURLE_WRITE_ERROR) }
        guard case .transportError(CURLE_WRITE_ERROR, _, false) = failed else {
            return XCTFail("libcurl's own write error when no callback recorded a reason: \(failed)")
        }
    }

    func testThatTheEngineThreadIsRecognisedByIdentity() throws {
        let session = SessionManager()
        let (_, attempt) = try makeAttempt(session: session, sink: MemorySink())
        XCTAssertFalse(attempt.isOnEngineThread)
        XCTAssertFalse(session.engine.isCurrentThread)
        XCTAssertTrue(onEngineThread(session) { attempt.isOnEngineThread })
        // Another thread named like the engine's is not the engine thread.
        let name = onEngineThread(session) { Thread.current.name ?? "" }
        let impostor = Awaited<Bool>()
        let thread = Thread { impostor.set(attempt.isOnEngineThread) }
        thread.name = name
        thread.start()
        XCTAssertEqual(impostor.wait(), false)
    }

    // MARK: - Helpers

    private func makeAttempt(session: SessionManager, sink: ResponseSink) throws -> (Transfer, CurlAttempt) {
        let request = URLRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:1/never-started")))
        let transfer = Transfer(session: session, definition: .init(urlRequest: .success(request)))
        let plan = AttemptPlan(request: request, body: .none, options: AttemptOptions())
        let attempt = CurlAttempt(transfer: transfer, plan: plan, body: .none, sink: sink,
                                  startTime: Date.timeIntervalSinceReferenceDate,
                                  stage: .init(attempt: 1, hop: 0, generation: 1))
        return (transfer, attempt)
    }

    /// Runs `body` on the session's engine thread and returns its value.
    private func onEngineThread<Value>(_ session: SessionManager, _ body: @escaping @Sendable () -> Value) -> Value {
        let box = EngineThreadResult<Value>()
        let done = DispatchSemaphore(value: 0)
        XCTAssertTrue(session.engine.enqueue(.withShareHandle { _ in
            box.value = body()
            done.signal()
        }))
        done.wait()
        return box.value!
    }

    private static func isCancelled(_ ending: AttemptEnding?) -> Bool {
        if case .cancelled? = ending { return true }
        return false
    }
}

/// A value handed from the engine thread to the test (`@unchecked Sendable`: written before the
/// semaphore is signalled, read after it is waited for).
private final class EngineThreadResult<Value>: @unchecked Sendable {
    var value: Value?
}

/// A sink that refuses every chunk with a precise error, as a download's file sink does on a full disk.
private final class FailingSink: FailableSink {
    let failure: CurlfireError?
    init(failure: CurlfireError) { self.failure = failure }
    var byteCount: Int64 { 0 }
    func prepare(expectedLength: Int64?) {}
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool { false }
}
