import Curlfire
import Foundation
import XCTest

/// `cancel(createResumeData:)` (Alamofire 4) and `cancel(producingResumeData:)` (Alamofire 5).
final class DownloadCancelOptionsTests: XCTestCase {
    private var directory: URL!
    private var savedTMPDIR: String?
    private var server: RangeMockServer!

    override func setUpWithError() throws {
        // A private temporary directory, so the test sees exactly the partial files its downloads make.
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cancel-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        savedTMPDIR = ProcessInfo.processInfo.environment["TMPDIR"]
        setenv("TMPDIR", directory.path, 1)
        server = try RangeMockServer()
    }

    override func tearDown() {
        if let savedTMPDIR { setenv("TMPDIR", savedTMPDIR, 1) } else { unsetenv("TMPDIR") }
        try? FileManager.default.removeItem(at: directory)
        server = nil
    }

    private func partialFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("curlfire-download-") }
    }

    /// Starts a slow download and cancels it with `cancel` once a fifth has arrived.
    private func download(cancellingWith cancel: @escaping @Sendable (DownloadRequest) -> Void) async throws
        -> DownloadResponse<URL> {
        let once = Once()
        let url = server.url(.slow, size: 2 << 20)
        let request = Curlfire.download(url)
        return await request.downloadProgress { progress in
            if progress.fractionCompleted >= 0.2, once.claim() { cancel(request) }
        }.serializingDownloadedFileURL().response
    }

    func testThatCancelWithoutResumeDataRemovesThePartialFile() async throws {
        let response = try await download { $0.cancel(createResumeData: false) }
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, response.debugDescription)
        XCTAssertNil(response.resumeData)
        XCTAssertNil(response.temporaryURL)
        XCTAssertEqual(partialFiles(), [], "the partial file is removed")
    }

    func testThatCancelWithResumeDataKeepsThePartialFileAsCancelDoes() async throws {
        let response = try await download { $0.cancel(createResumeData: true) }
        XCTAssertTrue(response.error?.isExplicitlyCancelledError ?? false, response.debugDescription)
        XCTAssertNotNil(response.resumeData)
        let temporary = try XCTUnwrap(response.temporaryURL)
        XCTAssertEqual(partialFiles(), [temporary.lastPathComponent])
    }

    func testThatAlamofire5sProducingResumeDataSpellingBehavesTheSame() async throws {
        let dropped = try await download { $0.cancel(producingResumeData: false) }
        XCTAssertNil(dropped.resumeData, dropped.debugDescription)
        XCTAssertEqual(partialFiles(), [])
        let kept = try await download { $0.cancel(producingResumeData: true) }
        XCTAssertNotNil(kept.resumeData, kept.debugDescription)
    }
}

/// Alamofire 4's trailing-closure destination still binds to `to:` beside Alamofire 5's parameters.
final class DownloadCallShapeTests: XCTestCase {
    func testThatATrailingClosureIsTheDestination() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("shape-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let response = await Curlfire.download(try Live.httpbin("/bytes/32")) { _, _ in (target, []) }
            .serializingDownloadedFileURL().response
        XCTAssertEqual(response.value, target, response.debugDescription)
        let modified = await Curlfire.download(try Live.httpbin("/headers"), requestModifier: {
            $0.setValue("m", forHTTPHeaderField: "X-M")
        }).serializingData().response
        XCTAssertTrue(String(decoding: modified.value ?? Data(), as: UTF8.self).contains("\"X-M\": \"m\""))
    }
}
