import Curlfire
import Foundation
import XCTest

/// A download retried after bytes arrived continues from them (issue 14 point 5): the fault
/// server's `/cut-once` cuts its first response mid-body, then honours (or ignores) `Range` +
/// `If-Range`; the final file is checked byte for byte.
final class DownloadRetryResumeTests: XCTestCase {
    private struct Log: Decodable {
        struct Entry: Decodable { let range: String?; let ifRange: String? }
        let requests: [Entry]
    }

    /// Retries a lost connection once.
    private struct RetryLostConnectionOnce: RequestRetrier {
        func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                    completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
            let lost = (error as? CurlfireError)?.transportErrorCode == .connectionLost
            completion(lost && request.retryCount == 0, 0)
        }
    }

    private func expected(size: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }) }

    private func log(key: String) async throws -> [Log.Entry] {
        let url = try FaultServer.shared().url("/cut-once/log?key=\(key)")
        let data = try await Curlfire.request(url).validate().serializingData().value
        return try JSONDecoder().decode(Log.self, from: data).requests
    }

    private func retriedDownload(size: Int, range: String, validator: String) async throws
        -> (response: DownloadResponse<Data>, log: [Log.Entry], key: String) {
        let key = UUID().uuidString
        let url = try FaultServer.shared().url("/cut-once?key=\(key)&size=\(size)&range=\(range)&validator=\(validator)")
        let response = await Curlfire.download(url, interceptor: Interceptor(retriers: [RetryLostConnectionOnce()]))
            .serializingData().response
        return (response, try await log(key: key), key)
    }

    func testThatARetriedDownloadResumesWithRangeAndTheETagAsIfRange() async throws {
        let size = 300_000
        let (response, log, key) = try await retriedDownload(size: size, range: "honour", validator: "etag")
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 206)
        XCTAssertEqual(response.value, expected(size: size), "the final file holds every byte, in order")
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log.first?.range)
        let range = try XCTUnwrap(log.last?.range)
        let start = try XCTUnwrap(Int(range.dropFirst("bytes=".count).dropLast()))
        XCTAssertGreaterThan(start, 0, "resumed after the bytes that arrived")
        XCTAssertLessThanOrEqual(start, size / 2)
        XCTAssertEqual(log.last?.ifRange, "\"cut-once-\(key)\"")
        XCTAssertLessThanOrEqual(response.metrics?.bytesReceived ?? .max, Int64(size - start) + 1_000,
                                 "the second attempt received only the rest")
    }

    func testThatARetriedDownloadUsesLastModifiedWhenThereIsNoETag() async throws {
        let size = 200_000
        let (response, log, _) = try await retriedDownload(size: size, range: "honour", validator: "date")
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.value, expected(size: size))
        XCTAssertEqual(log.last?.ifRange, "Tue, 01 Apr 2025 10:00:00 GMT")
        XCTAssertNotNil(log.last?.range)
    }

    func testThatAServerIgnoringTheRangeMakesTheFileStartOverCorrectly() async throws {
        let size = 250_000
        let (response, log, _) = try await retriedDownload(size: size, range: "ignore", validator: "etag")
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.value, expected(size: size), "a 200 rewrites the file from byte 0")
        XCTAssertNotNil(log.last?.range, "the range was asked for")
    }

    func testThatAFailedRetryLeavesResumeDataForEveryByteThatArrived() async throws {
        // Given: the first response and the retry's 206 are both cut (cuts=2); the retrier retries once
        let size = 400_000
        let key = UUID().uuidString
        let url = try FaultServer.shared().url("/cut-once?key=\(key)&size=\(size)&cuts=2")
        let failed = await Curlfire.download(url, interceptor: Interceptor(retriers: [RetryLostConnectionOnce()]))
            .serializingData().response
        XCTAssertEqual(failed.error?.transportErrorCode, .connectionLost, failed.debugDescription)
        let resumeData = try XCTUnwrap(failed.resumeData, "the bytes of both attempts are resumable")
        // When: resuming from that data
        let resumed = await Curlfire.download(resumingWith: resumeData).validate().serializingData().response
        // Then: the file is complete, and the last request asked only for what was still missing
        XCTAssertNil(resumed.error, resumed.debugDescription)
        XCTAssertEqual(resumed.value, expected(size: size))
        let ranges = try await log(key: key).compactMap { $0.range }
        XCTAssertEqual(ranges.count, 2)
        let starts = ranges.compactMap { Int($0.dropFirst("bytes=".count).dropLast()) }
        XCTAssertEqual(starts.count, 2)
        XCTAssertGreaterThan(starts.last ?? 0, starts.first ?? 0, "the resume continued after the retry's bytes")
    }
}
