import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Cancel, failure and resume: byte-identical results whatever the server does with `Range`. Each test
/// runs its own in-process range server (Support/RangeMockServer.swift), whose log is the test's own.
final class DownloadResumeTests: XCTestCase {
    private var cleanup: [URL] = []
    private var server: RangeMockServer!

    override func setUpWithError() throws {
        server = try RangeMockServer()
    }

    override func tearDown() {
        for url in cleanup { try? FileManager.default.removeItem(at: url) }
        server = nil
    }

    /// Runs `request` until its progress reaches `fraction`, then cancels it; returns the response.
    private func cancel(_ request: DownloadRequest, at fraction: Double) async -> DownloadResponse<URL> {
        let once = Once()
        let request = request.downloadProgress { progress in
            if progress.fractionCompleted >= fraction, once.claim() { request.cancel() }
        }
        return await request.serializingDownloadedFileURL().response
    }

    private func expectCancelledWithResumeData(_ response: DownloadResponse<URL>, file: StaticString = #filePath,
                                               line: UInt = #line) throws -> Data {
        guard case .explicitlyCancelled? = response.error else {
            XCTFail("expected a cancellation: \(response.debugDescription)", file: file, line: line)
            throw XCTSkip("not cancelled")
        }
        let temporary = try XCTUnwrap(response.temporaryURL, "the partial file is reported", file: file, line: line)
        cleanup.append(temporary)
        XCTAssertGreaterThan(fileSize(temporary), 0, file: file, line: line)
        return try XCTUnwrap(response.resumeData, "cancel() leaves resume data", file: file, line: line)
    }

    func testThatCancellingAtSeveralPointsAndResumingGivesTheSameBytes() async throws {
        let size = 3 << 20
        let url = server.url(.slow, size: size)
        var resumeData = try expectCancelledWithResumeData(await cancel(Curlfire.download(url), at: 0.2))
        for fraction in [0.5, 0.8] {
            let response = await cancel(Curlfire.download(resumingWith: resumeData), at: fraction)
            resumeData = try expectCancelledWithResumeData(response)
        }
        let fractions = Recorder<Double>()
        let final = await Curlfire.download(resumingWith: resumeData)
            .downloadProgress { fractions.append($0.fractionCompleted) }
            .validate().serializingDownloadedFileURL().response
        let file = try XCTUnwrap(final.value, final.debugDescription)
        cleanup.append(file)
        XCTAssertEqual(final.response?.statusCode, 206)
        XCTAssertEqual(try Data(contentsOf: file), RangeMockServer.expectedBody(size: size))
        XCTAssertGreaterThan(fractions.all.first ?? 0, 0.79, "a resumed download's progress counts the bytes it had")
        XCTAssertEqual(fractions.all, fractions.all.sorted())
        XCTAssertEqual(fractions.all.last ?? 0, 1.0, accuracy: 1e-9)
        let headers = server.rangeHeaders(for: "/slow/\(size)")
        XCTAssertEqual(headers.count, 4)
        XCTAssertNil(headers.first?.range)
        XCTAssertTrue(headers.dropFirst().allSatisfy { $0.range?.hasPrefix("bytes=") == true && $0.ifRange == "\"v1-\(size)\"" },
                      "\(headers)")
    }

    func testThatADroppedConnectionLeavesResumeDataThatCompletesTheFile() async throws {
        let size = 1 << 20
        let url = server.url(.drop, size: size)
        let failed = await Curlfire.download(url).serializingDownloadedFileURL().response
        XCTAssertEqual(failed.error?.transportErrorCode, .connectionLost, failed.debugDescription)
        let resumeData = try XCTUnwrap(failed.resumeData, failed.debugDescription)
        cleanup.append(try XCTUnwrap(failed.temporaryURL))
        XCTAssertEqual(fileSize(failed.temporaryURL), size / 2)
        let resumed = await Curlfire.download(resumingWith: resumeData).validate().serializingData().response
        XCTAssertEqual(resumed.response?.statusCode, 206)
        XCTAssertEqual(resumed.value, RangeMockServer.expectedBody(size: size))
        XCTAssertEqual(server.rangeHeaders(for: "/drop/\(size)").last?.range, "bytes=\(size / 2)-")
        resumed.fileURL.map { cleanup.append($0) }
    }

    /// Resume data for `mode`, as the documented format describes it, over a partial file of `bytes` bytes.
    private func craftedResumeData(mode: RangeMockServer.Mode, size: Int, bytes: Int, entityTag: String?) throws -> Data {
        let url = server.url(mode, size: size)
        let partial = FileManager.default.temporaryDirectory
            .appendingPathComponent("curlfire-download-\(UUID().uuidString).tmp")
        try RangeMockServer.expectedBody(size: size).prefix(bytes).write(to: partial)
        cleanup.append(partial)
        var object: [String: Any] = [
            "format": "org.curlfire.resume-data", "version": 1, "bytesReceived": bytes, "totalBytes": size,
            "temporaryFile": partial.path, "lastModified": "Tue, 01 Apr 2025 10:00:00 GMT",
            "request": ["url": url.absoluteString, "method": "GET", "headers": ["Accept": "*/*"]],
        ]
        if let entityTag { object["entityTag"] = entityTag }
        return try JSONSerialization.data(withJSONObject: object)
    }

    func testThatAServerIgnoringTheRangeStartsTheFileOverCleanly() async throws {
        let size = 300_000
        let resumeData = try craftedResumeData(mode: .norange, size: size, bytes: 100_000, entityTag: "\"v1-\(size)\"")
        let response = await Curlfire.download(resumingWith: resumeData).validate().serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200)
        XCTAssertEqual(response.value, RangeMockServer.expectedBody(size: size), "not appended after the partial bytes")
    }

    func testThatAChangedEntityIsDownloadedWhole() async throws {
        let size = 200_000
        let resumeData = try craftedResumeData(mode: .good, size: size, bytes: 50_000, entityTag: "\"v0-stale\"")
        let response = await Curlfire.download(resumingWith: resumeData).validate().serializingData().response
        XCTAssertEqual(response.response?.statusCode, 200, "If-Range did not match")
        XCTAssertEqual(response.value, RangeMockServer.expectedBody(size: size))
    }

    func testThatLastModifiedServesAsIfRangeWithoutAnETag() async throws {
        let size = 200_000
        let resumeData = try craftedResumeData(mode: .lastModified, size: size, bytes: 123_456, entityTag: nil)
        let response = await Curlfire.download(resumingWith: resumeData).validate().serializingData().response
        XCTAssertEqual(response.response?.statusCode, 206)
        XCTAssertEqual(response.value, RangeMockServer.expectedBody(size: size))
        let sent = server.rangeHeaders(for: "/lastmodified/\(size)").last
        XCTAssertEqual(sent?.range, "bytes=123456-")
        XCTAssertEqual(sent?.ifRange, "Tue, 01 Apr 2025 10:00:00 GMT")
    }

    func testThatA416FailsWithInvalidResumeDataAndKeepsThePartialFile() async throws {
        let resumeData = try craftedResumeData(mode: .unsatisfiable, size: 5000, bytes: 1000, entityTag: "\"v1-5000\"")
        let response = await Curlfire.download(resumingWith: resumeData).serializingDownloadedFileURL().response
        guard case let .invalidResumeData(reason)? = response.error else { return XCTFail(response.debugDescription) }
        XCTAssertTrue(reason.contains("416"), reason)
        XCTAssertEqual(response.response?.statusCode, 416)
        XCTAssertEqual(fileSize(response.temporaryURL), 1000, "the partial file is untouched")
        XCTAssertNil(response.resumeData)
    }

    func testThatAnErrorPageWhileResumingLeavesThePartialFileForALaterTry() async throws {
        let size = 100_000
        let resumeData = try craftedResumeData(mode: .flaky, size: size, bytes: 40_000, entityTag: "\"v1-\(size)\"")
        let response = await Curlfire.download(resumingWith: resumeData).validate().serializingString().response
        XCTAssertEqual(response.error?.responseCode, 503, response.debugDescription)
        response.temporaryURL.map { cleanup.append($0) }
        let partial = try XCTUnwrap(JSONSerialization.jsonObject(with: resumeData) as? [String: Any])["temporaryFile"] as? String
        XCTAssertNotEqual(response.temporaryURL?.path, partial)
        XCTAssertEqual(fileSize(URL(fileURLWithPath: try XCTUnwrap(partial))), 40_000)
    }

    func testThatHttpbinRangeResumesWithItsETag() async throws {
        let size = 60_000
        let url = try Live.httpbin("/range/\(size)?duration=2&chunk_size=2000")
        let cancelled = await cancel(Curlfire.download(url), at: 0.3)
        XCTAssertEqual(cancelled.response?.value(forHTTPHeaderField: "ETag"), "range\(size)")
        let resumeData = try expectCancelledWithResumeData(cancelled)
        let resumed = await Curlfire.download(resumingWith: resumeData).validate().serializingString().response
        XCTAssertEqual(resumed.response?.statusCode, 206)
        let expected = String((0..<size).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) })
        XCTAssertEqual(resumed.value, expected)
        resumed.fileURL.map { cleanup.append($0) }
    }

    func testThatAResumedRequestCancelledBeforeStartingKeepsItsResumeData() async throws {
        let resumeData = try craftedResumeData(mode: .good, size: 10_000, bytes: 5_000, entityTag: "\"v1-10000\"")
        let request = Curlfire.download(resumingWith: resumeData).cancel()
        let response = await request.serializingDownloadedFileURL().response
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false)
        XCTAssertEqual(response.resumeData, resumeData)
        XCTAssertEqual(request.resumeData, resumeData)
    }
}
