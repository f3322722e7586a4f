@testable import Curlfire
import XCTest

/// Which receive buffer an attempt asks libcurl for (Engine/ReceiveBuffer.swift).
final class ReceiveBufferSizeTests: XCTestCase {
    func testThatADownloadToAFileReadsThroughTheSessionsSize() {
        XCTAssertEqual(ReceiveBuffer.size(configured: 512 * 1024, writesFile: true), 512 * 1024)
        XCTAssertEqual(ReceiveBuffer.size(configured: 4 * 1024, writesFile: true), 4 * 1024)
    }

    func testThatAnyOtherBodyReadsThroughAtMostLibcurlsDefault() {
        XCTAssertEqual(ReceiveBuffer.size(configured: 512 * 1024, writesFile: false), 16 * 1024)
        XCTAssertEqual(ReceiveBuffer.size(configured: 4 * 1024, writesFile: false), 4 * 1024,
                       "a session that asks for less than libcurl's default gets it everywhere")
    }

    func testThatNoSizeMeansLibcurlsDefault() {
        XCTAssertEqual(ReceiveBuffer.size(configured: 0, writesFile: true), ReceiveBuffer.libcurlDefault)
        XCTAssertEqual(ReceiveBuffer.size(configured: -1, writesFile: false), ReceiveBuffer.libcurlDefault)
    }

    func testThatOnlyAFileSinkAsksForTheSessionsSize() throws {
        XCTAssertFalse(MemorySink().writesFile)
        XCTAssertFalse(ClosureSink(queue: .global(), closure: { _ in }).writesFile)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("receive-buffer-\(UUID().uuidString)")
        XCTAssertTrue(FileSink(plan: FileSink.Plan(fileURL: file)).writesFile)
    }
}
