@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The session's `receiveBufferSize` is libcurl's receive buffer for downloads to a file only; every
/// other response reads through at most libcurl's 16 KiB (Engine/ReceiveBuffer.swift). One pooled
/// easy handle serves a session's requests one after another, so it goes from one size to the other
/// and back; each request must still get exactly its bytes. Against nginx's large file, 4 MiB of it
/// by a `Range` header.
final class ReceiveBufferTests: XCTestCase {
    private static let length = 4 << 20
    private static let sessionSize = 1 << 20

    private func largeFile() throws -> URL {
        guard let base = try Live.servers().nginxHTTP else { throw XCTSkip("nginx is not running here") }
        return base.appendingPathComponent("large.bin")
    }

    private var firstBytes: HTTPHeaders { ["Range": "bytes=0-\(Self.length - 1)"] }

    func testThatOnlyADownloadToAFileReadsThroughTheSessionsBuffer() async throws {
        let url = try largeFile()
        var configuration = SessionConfiguration()
        configuration.receiveBufferSize = Self.sessionSize
        let session = SessionManager(configuration: configuration)
        let engine = try XCTUnwrap(session.engine as? Engine)

        let inMemory = try await session.request(url, headers: firstBytes).validate().serializingData().value
        XCTAssertEqual(inMemory.count, Self.length)
        XCTAssertEqual(engine.lastReceiveBufferSize.load(ordering: .relaxed), 16 * 1024, "a data request")

        let download = await session.download(url, headers: firstBytes).validate().serializingDownloadedFileURL().response
        let file = try XCTUnwrap(download.value, download.debugDescription)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try Data(contentsOf: file), inMemory, "the same bytes on disk as in memory")
        XCTAssertEqual(engine.lastReceiveBufferSize.load(ordering: .relaxed), Self.sessionSize, "a download")

        let chunks = Recorder<Data>()
        let streamed = session.request(url, headers: firstBytes).validate().stream { chunks.append($0) }
        let response = await awaitResponse { streamed.response(completionHandler: $0) }
        XCTAssertNil(response.error)
        XCTAssertEqual(chunks.all.reduce(Data(), +), inMemory, "streamed after the download, on its handle")
        XCTAssertEqual(engine.lastReceiveBufferSize.load(ordering: .relaxed), 16 * 1024,
                       "the handle went back to libcurl's default after the download")
    }

    func testThatASessionSizeBelowLibcurlsDefaultIsUsedForEveryResponse() async throws {
        let url = try largeFile()
        var configuration = SessionConfiguration()
        configuration.receiveBufferSize = 4 * 1024
        let session = SessionManager(configuration: configuration)
        let engine = try XCTUnwrap(session.engine as? Engine)
        let data = try await session.request(url, headers: firstBytes).validate().serializingData().value
        XCTAssertEqual(data.count, Self.length)
        XCTAssertEqual(engine.lastReceiveBufferSize.load(ordering: .relaxed), 4 * 1024)
    }
}
