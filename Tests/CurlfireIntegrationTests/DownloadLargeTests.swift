import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// nginx's 64 MiB file: flat memory, exact bytes, progress, cancel and resume.
final class DownloadLargeTests: XCTestCase {
    private func large() throws -> (url: URL, size: Int, sha: String) {
        let servers = try Live.servers()
        guard let base = servers.nginxHTTP, let size = servers.largeFileSize, let sha = servers.largeFileSHA256 else {
            throw XCTSkip("nginx is not running here")
        }
        return (base.appendingPathComponent("large.bin"), size, sha)
    }

    func testThatA64MiBDownloadKeepsMemoryFlatWithExactBytesAndProgress() async throws {
        let (url, size, sha) = try large()
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let fractions = Recorder<Double>()
        let totals = Recorder<Int64>()
        let response = await Curlfire.download(url)
            .downloadProgress { fractions.append($0.fractionCompleted); totals.append($0.totalUnitCount) }
            .validate().serializingDownloadedFileURL().response
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        let file = try XCTUnwrap(response.value, response.debugDescription)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(fileSize(file), size)
        XCTAssertEqual(try sha256(of: file), sha)
        XCTAssertLessThan(growth, 16 * 1024, "peak RSS grew by \(growth) KiB for a 64 MiB download")
        XCTAssertEqual(fractions.all, fractions.all.sorted(), "non-decreasing")
        XCTAssertEqual(fractions.all.last ?? 0, 1.0, accuracy: 1e-9)
        XCTAssertEqual(Set(totals.all), [Int64(size)], "the total comes from Content-Length")
        print("64 MiB download: peak RSS growth \(growth) KiB, \(fractions.all.count) progress reports")
    }

    func testThatACancelledLargeDownloadResumesToTheSameSHA256() async throws {
        let (url, size, sha) = try large()
        // A 16 KiB receive buffer keeps loopback slow enough that the cancellation, made from a
        // progress handler on its own queue, always lands before the end of the file. (That the
        // write callback stops at the next chunk is CancelFlagTests' job.)
        var configuration = SessionConfiguration()
        configuration.receiveBufferSize = 16 * 1024
        let session = SessionManager(configuration: configuration)
        let once = Once()
        let request = session.download(url)
        let first = await request.downloadProgress(queue: DispatchQueue(label: "cancel")) { progress in
            guard progress.completedUnitCount >= 8 << 20 else { return }
            if once.claim() { request.cancel() }
        }.serializingDownloadedFileURL().response
        first.value.map { try? FileManager.default.removeItem(at: $0) }
        XCTAssertEqual(first.error?.isExplicitlyCancelledError, true, first.debugDescription)
        let resumeData = try XCTUnwrap(first.resumeData, first.debugDescription)
        let had = fileSize(first.temporaryURL)
        XCTAssertGreaterThan(had, 0)
        XCTAssertLessThan(had, size)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-large-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let resumed = await session.download(resumingWith: resumeData, to: { _, _ in
            (directory.appendingPathComponent("large.bin"), [.createIntermediateDirectories])
        }).validate().serializingDownloadedFileURL().response
        XCTAssertEqual(resumed.response?.statusCode, 206)
        let file = try XCTUnwrap(resumed.value, resumed.debugDescription)
        XCTAssertEqual(try sha256(of: file), sha)
        print("64 MiB download cancelled at \(had) bytes and resumed: SHA-256 matches")
    }

    func testThatASuspensionLongerThanTheIdleTimeoutIsNotATimeout() async throws {
        // httpbin drips 20 bytes over 2 s; the transfer is suspended for 2.5 s after the first one,
        // longer than the 1 s idle timeout: a suspended transfer is not idle.
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 1
        let session = SessionManager(configuration: configuration)
        let once = Once()
        let request = session.download(try Live.httpbin("/drip?numbytes=20&duration=2&delay=0"))
        let task = request.downloadProgress(queue: DispatchQueue(label: "suspend-long")) { progress in
            guard progress.completedUnitCount >= 1 else { return }
            if once.claim() {
                request.suspend()
                DispatchQueue.global().asyncAfter(deadline: .now() + 2.5) { request.resume() }
            }
        }.serializingDownloadedFileURL()
        let response = await task.response
        let file = try XCTUnwrap(response.value, response.debugDescription)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try Data(contentsOf: file), Data(repeating: UInt8(ascii: "*"), count: 20))
        XCTAssertGreaterThan(response.timeline.totalDuration, 2.4, "the suspension happened")
    }

    func testThatSuspendAndResumeMidDownloadKeepTheBytesExact() async throws {
        let (url, _, sha) = try large()
        let once = Once()
        let request = Curlfire.download(url)
        let task = request.downloadProgress(queue: DispatchQueue(label: "suspend")) { progress in
            guard progress.completedUnitCount >= 4 << 20 else { return }
            if once.claim() {
                request.suspend()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { request.resume() }
            }
        }.serializingDownloadedFileURL()
        let response = await task.response
        let file = try XCTUnwrap(response.value, response.debugDescription)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try sha256(of: file), sha)
    }
}
