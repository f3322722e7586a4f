import Curlfire
import CurlfireTesting
import Foundation
import FoundationNetworking
import XCTest

/// Downloads meeting a misbehaving server: whatever goes wrong, nothing lands at the destination, no
/// temporary file is left behind unless resume data points at it, the error is the typed cause, and
/// resume data is there exactly when resumable body bytes arrived — and finishes the file byte for
/// byte against a server that answers the range.
///
/// Clean closes (FIN) and stalls come from in-process `MockServer`s (a queue for the faults without a
/// validator, Support/RangeMockServer.swift for the resumable ones); what MockServer cannot send —
/// resets (RST), malformed chunking, a TLS server closing after the handshake — from
/// scripts/fault-server.py.
///
/// Each test points `TMPDIR` at a directory of its own so the temporary files it sees are its own
/// (other processes on the machine download into `/tmp` too).
final class DownloadFaultTests: XCTestCase {
    private var directory: URL!
    private var temporaryDirectory: URL!
    private var savedTMPDIR: String?
    /// Scripted per test (the faults without a validator).
    private var server: MockServer!
    /// Serves resumable files that fail part-way (`drop`, `stall`) and answers their ranges.
    private var rangeServer: RangeMockServer!

    override func setUpWithError() throws {
        let base = URL(fileURLWithPath: "/tmp").appendingPathComponent("curlfire-faults-\(UUID().uuidString)")
        directory = base.appendingPathComponent("destination")
        temporaryDirectory = base.appendingPathComponent("tmp")
        for url in [directory!, temporaryDirectory!] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        savedTMPDIR = ProcessInfo.processInfo.environment["TMPDIR"]
        setenv("TMPDIR", temporaryDirectory.path, 1)
        XCTAssertEqual(FileManager.default.temporaryDirectory.standardizedFileURL.path,
                       temporaryDirectory.standardizedFileURL.path, "FileManager follows TMPDIR")
        server = try MockServer()
        rangeServer = try RangeMockServer()
    }

    override func tearDownWithError() throws {
        if let savedTMPDIR { setenv("TMPDIR", savedTMPDIR, 1) } else { unsetenv("TMPDIR") }
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
        server = nil
        rangeServer = nil
    }

    /// A session whose idle timeout is one second, so a stall fails fast (longer under a sanitizer
    /// for `idleTimeout`'s callers, whose TLS handshake alone can outlast one second there).
    private func session(trustingTestRoot: Bool = false, idleTimeout: TimeInterval = 1) throws -> SessionManager {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = 10
        if trustingTestRoot {
            configuration.trustedRootCertificates = [try Certificate(contentsOf: Live.servers().pkiFile("root-ca.pem"))]
        }
        return SessionManager(configuration: configuration)
    }

    private var destination: URL { directory.appendingPathComponent("file.bin") }

    private func to(_ url: URL) -> DownloadRequest.DownloadFileDestination {
        { _, _ in (url, [.createIntermediateDirectories]) }
    }

    /// The files in this test's temporary directory.
    private func temporaryFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temporaryDirectory.path).sorted()
    }

    /// scripts/fault-server.py's deterministic body: byte i is (i * 31 + 7) mod 256.
    private func faultServerBody(size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    /// Downloads `url` to the destination and checks the failure: the typed cause, an empty
    /// destination directory, and resume data (with its partial file) exactly when `partialBytes` is
    /// not `nil`. Returns the response.
    @discardableResult
    private func assertFault(_ url: String, _ expected: TransportErrorCode, partialBytes: Int?, within seconds: TimeInterval,
                             session: SessionManager, file: StaticString = #filePath, line: UInt = #line)
        async throws -> DownloadResponse<URL> {
        let started = Date()
        let response = await session.download(url, to: to(destination)).serializingDownloadedFileURL().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.error?.transportErrorCode, expected, "\(url): \(response.debugDescription)", file: file, line: line)
        XCTAssertLessThan(elapsed, seconds, "\(url) took \(elapsed) s", file: file, line: line)
        XCTAssertNil(response.destinationURL, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path), "no partial file at the destination",
                       file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], file: file, line: line)
        if let partialBytes {
            XCTAssertNotNil(response.resumeData, "\(url): bytes arrived, resume data expected", file: file, line: line)
            let partial = try XCTUnwrap(response.temporaryURL, file: file, line: line)
            XCTAssertEqual(fileSize(partial), partialBytes, file: file, line: line)
            XCTAssertEqual(try temporaryFiles(), [partial.lastPathComponent], "only the partial file the resume data names",
                           file: file, line: line)
        } else {
            XCTAssertNil(response.resumeData, "\(url): no resumable bytes, no resume data", file: file, line: line)
            XCTAssertNil(response.temporaryURL, file: file, line: line)
            XCTAssertEqual(try temporaryFiles(), [], "the temporary file is removed", file: file, line: line)
        }
        return response
    }

    /// Resumes `resumeData` against the server that failed (it answers the range) and checks the file
    /// holds `expected`.
    private func assertResumes(_ resumeData: Data, expected: Data, session: SessionManager,
                               file: StaticString = #filePath, line: UInt = #line) async throws {
        let resumed = await session.download(resumingWith: resumeData, to: to(destination)).validate()
            .serializingDownloadedFileURL().response
        XCTAssertNil(resumed.error, resumed.debugDescription, file: file, line: line)
        XCTAssertEqual(resumed.response?.statusCode, 206, file: file, line: line)
        XCTAssertEqual(resumed.destinationURL, destination, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: destination), expected, "byte for byte", file: file, line: line)
        XCTAssertEqual(try temporaryFiles(), [], "the partial file was moved to the destination", file: file, line: line)
    }

    // MARK: - Not resumable: no validator, or no body byte

    func testThatAResetMidBodyLeavesNoFileAndNoResumeDataWithoutAValidator() async throws {
        try await assertFault(FaultServer.shared().url("/reset-mid-body"), .connectionLost, partialBytes: nil,
                              within: 4, session: session())
    }

    func testThatAShortBodyLeavesNoFileAndNoResumeDataWithoutAValidator() async throws {
        // Content-Length 100000, 50000 bytes, then a clean close (FIN).
        server.enqueue(MockResponse(headers: ["Content-Type": "application/octet-stream"], body: Data(count: 100_000))
            .disconnect(.midBody))
        try await assertFault(server.url("/short-body").absoluteString, .connectionLost, partialBytes: nil,
                              within: 4, session: session())
    }

    func testThatBadChunkingLeavesNoFileAndNoResumeDataWithoutAValidator() async throws {
        try await assertFault(FaultServer.shared().url("/bad-chunked"), .connectionLost, partialBytes: nil,
                              within: 4, session: session())
    }

    func testThatAStallBeforeTheBodyTimesOutWithNoFile() async throws {
        // The head (Content-Length 1000), then nothing.
        server.enqueue(MockResponse.text(String(repeating: "x", count: 1000)).stalled(at: .afterHeaders))
        try await assertFault(server.url("/stall").absoluteString, .timedOut, partialBytes: nil,
                              within: 4, session: session())
    }

    func testThatATLSServerClosingAfterTheHandshakeLeavesNoFile() async throws {
        try await assertFault(FaultServer.shared().https.absoluteString + "/file.bin", .connectionLost, partialBytes: nil,
                              within: 4 * sanitizerSlowdown,
                              session: session(trustingTestRoot: true, idleTimeout: sanitizerSlowdown))
    }

    // MARK: - Resumable: a strong ETag and body bytes received

    func testThatAResetMidBodyLeavesResumeDataThatFinishesTheFile() async throws {
        let session = try session()
        let size = 200_000
        let failed = try await assertFault(FaultServer.shared().url("/resumable/reset-mid-body?size=\(size)"), .connectionLost,
                                           partialBytes: size / 2, within: 4, session: session)
        try await assertResumes(try XCTUnwrap(failed.resumeData), expected: faultServerBody(size: size), session: session)
    }

    func testThatAShortBodyLeavesResumeDataThatFinishesTheFile() async throws {
        let session = try session()
        let size = 150_000
        let failed = try await assertFault(rangeServer.url(.drop, size: size).absoluteString, .connectionLost,
                                           partialBytes: size / 2, within: 4, session: session)
        try await assertResumes(try XCTUnwrap(failed.resumeData), expected: RangeMockServer.expectedBody(size: size),
                                session: session)
    }

    func testThatBadChunkingAfterBodyBytesLeavesResumeDataThatFinishesTheFile() async throws {
        let session = try session()
        let size = 100_000
        let failed = try await assertFault(FaultServer.shared().url("/resumable/bad-chunked?size=\(size)"), .connectionLost,
                                           partialBytes: size / 2, within: 4, session: session)
        try await assertResumes(try XCTUnwrap(failed.resumeData), expected: faultServerBody(size: size), session: session)
    }

    func testThatAStallMidBodyHitsTheResourceTimeoutWithResumeDataThatFinishesTheFile() async throws {
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 2
        let session = SessionManager(configuration: configuration)
        let size = 120_000
        let failed = try await assertFault(rangeServer.url(.stall, size: size).absoluteString, .timedOut,
                                           partialBytes: size / 2, within: 3.5, session: session)
        try await assertResumes(try XCTUnwrap(failed.resumeData), expected: RangeMockServer.expectedBody(size: size),
                                session: session)
    }

    /// Once body bytes have flowed, the engine times a stall itself (libcurl's low-speed check
    /// averages over 5 s and would notice it about 5 s late): the 1 s idle timeout fires within
    /// 1 s + the engine's 100 ms wake-up + slack for a loaded machine.
    func testThatAStallMidBodyHitsTheIdleTimeoutOnTime() async throws {
        let size = 120_000
        let failed = try await assertFault(rangeServer.url(.stall, size: size).absoluteString, .timedOut,
                                           partialBytes: size / 2, within: 1 + 1.5, session: session())
        XCTAssertGreaterThan(failed.timeline.totalDuration, 0.9, "not before the idle timeout")
        if case let .sessionTaskFailed(_, message)? = failed.error {
            XCTAssertTrue(message.contains("timeoutIntervalForRequest"), message)
        }
    }

    func testThatAResumeMeetingTheSameFaultAgainKeepsItsPartialFileAndResumeData() async throws {
        let session = try session()
        let size = 100_000
        let failed = try await assertFault(rangeServer.url(.drop, size: size).absoluteString, .connectionLost,
                                           partialBytes: size / 2, within: 4, session: session)
        // The server now refuses the connection: port 1 on loopback is closed.
        let resumeData = try XCTUnwrap(failed.resumeData)
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: resumeData) as? [String: Any])
        var request = try XCTUnwrap(object["request"] as? [String: Any])
        request["url"] = "http://127.0.0.1:1/drop/\(size)"
        object["request"] = request
        let refused = await session.download(resumingWith: try JSONSerialization.data(withJSONObject: object), to: to(destination))
            .serializingDownloadedFileURL().response
        XCTAssertEqual(refused.error?.transportErrorCode, .cannotConnect, refused.debugDescription)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(fileSize(refused.temporaryURL), size / 2, "the partial file is untouched")
        XCTAssertNotNil(refused.resumeData)
        try await assertResumes(resumeData, expected: RangeMockServer.expectedBody(size: size), session: session)
    }
}
