import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Bandwidth limits against nginx (issue 26, point 3): the transfer takes size / rate ± 10 %,
/// short transfers included (libcurl's own limiter lets 2 MB at 400 KB/s through in 0.6 s here).
final class BandwidthTests: XCTestCase {
    private func nginx(_ path: String) throws -> String {
        try XCTUnwrap(try Live.servers().nginxHTTP).absoluteString + path
    }

    /// GETs the first `size` bytes of nginx's large.bin and returns the seconds it took.
    private func timedDownload(size: Int, session: SessionManager, perRequest: Int? = nil) async throws -> TimeInterval {
        var request = session.request(try nginx("/large.bin"), headers: ["Range": "bytes=0-\(size - 1)"])
        if let perRequest { request = request.maximumDownloadBytesPerSecond(perRequest) }
        let started = Date()
        let response = await request.validate().serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.data?.count, size, "\(response.debugDescription)")
        return elapsed
    }

    func testThatTenMegabytesAtTwoMegabytesPerSecondTakeFiveSeconds() async throws {
        var configuration = SessionConfiguration()
        configuration.maximumDownloadBytesPerSecond = 2_000_000
        let elapsed = try await timedDownload(size: 10_000_000, session: SessionManager(configuration: configuration))
        XCTAssertEqual(elapsed, 5, accuracy: 0.5, "10 MB at 2 MB/s")
    }

    func testThatTwoMegabytesAtFourHundredKilobytesPerSecondTakeFiveSeconds() async throws {
        var configuration = SessionConfiguration()
        configuration.maximumDownloadBytesPerSecond = 10_000_000 // the request's own limit replaces it
        let elapsed = try await timedDownload(size: 2_000_000, session: SessionManager(configuration: configuration),
                                              perRequest: 400_000)
        XCTAssertEqual(elapsed, 5, accuracy: 0.5, "2 MB at 400 KB/s")
    }

    func testThatAnUploadIsPaced() async throws {
        var configuration = SessionConfiguration()
        configuration.maximumUploadBytesPerSecond = 250_000
        let session = SessionManager(configuration: configuration)
        let started = Date()
        let response = await session.upload(Data(count: 500_000), to: try nginx("/discard")).serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.response?.statusCode, 204, "\(response.debugDescription)")
        XCTAssertEqual(elapsed, 2, accuracy: 0.2, "500 KB at 250 KB/s")
    }

    func testThatAnUnlimitedTransferIsNotSlowed() async throws {
        let elapsed = try await timedDownload(size: 10_000_000, session: SessionManager())
        XCTAssertLessThan(elapsed, 2.5, "loopback without a limit")
    }

    func testThatANonPositiveLimitIsATypedError() async throws {
        let response = await SessionManager().request(try nginx("/small.txt")).maximumDownloadBytesPerSecond(0)
            .serializingData().response
        guard case .invalidBandwidthLimit? = response.error else { return XCTFail("\(response.debugDescription)") }
        XCTAssertNil(response.response)
    }
}
