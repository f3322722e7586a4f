import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// A download retried after bytes arrived continues from them (issue 14 point 5): an in-process
/// `MockServer` cuts its first response mid-body (a clean close, as a server that dies does), then
/// honours (or ignores) `Range` + `If-Range`; the final file is checked byte for byte.
final class DownloadRetryResumeTests: XCTestCase {
    private enum RangeHandling { case honour, ignore }
    private enum Validator { case entityTag, date }

    /// Retries a lost connection once.
    private struct RetryLostConnectionOnce: RequestRetrier {
        func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                    completion: @escaping @Sendable (Bool, TimeInterval) -> Void) {
            let lost = (error as? CurlfireError)?.transportErrorCode == .connectionLost
            completion(lost && request.retryCount == 0, 0)
        }
    }

    private var server: MockServer!

    override func tearDown() {
        server = nil
    }

    private static func expected(size: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }) }

    /// Starts a server for a file of `size` bytes at any path, validated by `validator` (`tag` names
    /// the entity tag), that answers:
    /// - its first request: `200`, `Content-Length: size`, half the body, then the connection closes;
    /// - requests 2…`cuts` asking for a valid range (`Range: bytes=S-`, `If-Range` the validator):
    ///   `206` with the `Content-Length` of the rest, half of it, then the connection closes;
    /// - later requests: a valid range with `.honour`, `206` with the rest; anything else `200` whole.
    private func startCuttingServer(size: Int, range: RangeHandling, validator: Validator, tag: String,
                                    cuts: Int = 1) throws {
        let body = Self.expected(size: size)
        let validatorField = validator == .entityTag ? (name: "ETag", value: "\"cut-once-\(tag)\"")
            : (name: "Last-Modified", value: "Tue, 01 Apr 2025 10:00:00 GMT")
        server = try MockServer { request in
            let count = request.sequenceNumber + 1
            var headers = [validatorField.name: validatorField.value, "Accept-Ranges": "bytes",
                           "Content-Type": "application/octet-stream"]
            if count == 1 {
                return MockResponse(headers: headers, body: body).disconnect(.midBody)
            }
            var start: Int?
            if let asked = request.headers["Range"], asked.hasPrefix("bytes="), asked.hasSuffix("-"),
               request.headers["If-Range"] == validatorField.value {
                start = Int(asked.dropFirst("bytes=".count).dropLast()).flatMap { $0 < size ? $0 : nil }
            }
            guard let start, count <= cuts || range == .honour else {
                return MockResponse(headers: headers, body: body)
            }
            headers["Content-Range"] = "bytes \(start)-\(size - 1)/\(size)"
            let rest = MockResponse(statusCode: 206, headers: headers, body: body.subdata(in: start..<size))
            return count <= cuts ? rest.disconnect(.midBody) : rest
        }
    }

    /// The `Range` and `If-Range` of every request the server received, in order.
    private func log() -> [(range: String?, ifRange: String?)] {
        var entries: [(range: String?, ifRange: String?)] = []
        while let request = server.takeRequest(timeout: 0) {
            entries.append((request.headers["Range"], request.headers["If-Range"]))
        }
        return entries
    }

    private func retriedDownload(size: Int, range: RangeHandling, validator: Validator) async throws
        -> (response: DownloadResponse<Data>, log: [(range: String?, ifRange: String?)], key: String) {
        let key = UUID().uuidString
        try startCuttingServer(size: size, range: range, validator: validator, tag: key)
        let response = await Curlfire.download(server.url("/file.bin"),
                                               interceptor: Interceptor(retriers: [RetryLostConnectionOnce()]))
            .serializingData().response
        removeTemporaryFile(of: response)
        return (response, log(), key)
    }

    /// A download without a destination leaves its file where it landed, the caller's to remove
    /// (Alamofire 4's contract): the tests remove theirs.
    private func removeTemporaryFile<Value>(of response: DownloadResponse<Value>) {
        if let file = response.temporaryURL { try? FileManager.default.removeItem(at: file) }
    }

    func testThatARetriedDownloadResumesWithRangeAndTheETagAsIfRange() async throws {
        let size = 300_000
        let (response, log, key) = try await retriedDownload(size: size, range: .honour, validator: .entityTag)
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 206)
        XCTAssertEqual(response.value, Self.expected(size: size), "the final file holds every byte, in order")
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
        let (response, log, _) = try await retriedDownload(size: size, range: .honour, validator: .date)
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.value, Self.expected(size: size))
        XCTAssertEqual(log.last?.ifRange, "Tue, 01 Apr 2025 10:00:00 GMT")
        XCTAssertNotNil(log.last?.range)
    }

    func testThatAServerIgnoringTheRangeMakesTheFileStartOverCorrectly() async throws {
        let size = 250_000
        let (response, log, _) = try await retriedDownload(size: size, range: .ignore, validator: .entityTag)
        XCTAssertNil(response.error, response.debugDescription)
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.value, Self.expected(size: size), "a 200 rewrites the file from byte 0")
        XCTAssertNotNil(log.last?.range, "the range was asked for")
    }

    func testThatAFailedRetryLeavesResumeDataForEveryByteThatArrived() async throws {
        // Given: the first response and the retry's 206 are both cut (cuts=2); the retrier retries once
        let size = 400_000
        try startCuttingServer(size: size, range: .honour, validator: .entityTag, tag: UUID().uuidString, cuts: 2)
        let failed = await Curlfire.download(server.url("/file.bin"), interceptor: Interceptor(retriers: [RetryLostConnectionOnce()]))
            .serializingData().response
        XCTAssertEqual(failed.error?.transportErrorCode, .connectionLost, failed.debugDescription)
        let resumeData = try XCTUnwrap(failed.resumeData, "the bytes of both attempts are resumable")
        // When: resuming from that data
        let resumed = await Curlfire.download(resumingWith: resumeData).validate().serializingData().response
        // Then: the file is complete, and the last request asked only for what was still missing
        removeTemporaryFile(of: resumed)
        XCTAssertNil(resumed.error, resumed.debugDescription)
        XCTAssertEqual(resumed.value, Self.expected(size: size))
        let ranges = log().compactMap { $0.range }
        XCTAssertEqual(ranges.count, 2)
        let starts = ranges.compactMap { Int($0.dropFirst("bytes=".count).dropLast()) }
        XCTAssertEqual(starts.count, 2)
        XCTAssertGreaterThan(starts.last ?? 0, starts.first ?? 0, "the resume continued after the retry's bytes")
    }
}
