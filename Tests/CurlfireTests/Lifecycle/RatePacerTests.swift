@testable import Curlfire
import XCTest

/// The bandwidth pacer as a table of (offered bytes, time) → (passes or waits until): pure, no network.
final class RatePacerTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testThatAChunkPassesOnlyOnceItsBytesAreDue() {
        var pacer = RatePacer(bytesPerSecond: 1000)
        let t0: UInt64 = 5 * second
        XCTAssertEqual(pacer.admitChunk(500, at: t0), t0 + second / 2, "the first chunk waits its own share")
        XCTAssertEqual(pacer.bytes, 0, "a held chunk is not counted")
        XCTAssertEqual(pacer.admitChunk(500, at: t0 + second / 4), t0 + second / 2)
        XCTAssertNil(pacer.admitChunk(500, at: t0 + second / 2))
        XCTAssertEqual(pacer.admitChunk(1000, at: t0 + second / 2), t0 + 3 * second / 2)
        XCTAssertNil(pacer.admitChunk(1000, at: t0 + 2 * second), "late is let through at once")
        XCTAssertEqual(pacer.bytes, 1500)
    }

    func testThatTheLastByteOfATransferIsDueAtSizeOverRate() {
        // 2,048,000 bytes at 409,600 B/s in 16 KiB chunks, each offered as soon as allowed: 5 s.
        var pacer = RatePacer(bytesPerSecond: 409_600)
        let t0: UInt64 = second
        var now = t0
        var left = 2_048_000
        while left > 0 {
            let chunk = min(16_384, left)
            if let until = pacer.admitChunk(chunk, at: now) { now = until; continue }
            left -= chunk
        }
        XCTAssertEqual(Double(now - t0) / 1e9, 5.0, accuracy: 0.001)
    }

    func testThatUploadsGetWhatIsEarnedInGranules() {
        var pacer = RatePacer(bytesPerSecond: 2000)
        let t0: UInt64 = second
        guard case let .failure(hold) = pacer.allowance(upTo: 65_536, at: t0) else { return XCTFail() }
        XCTAssertEqual(hold.until, t0 + second / 20, "a twentieth of a second's worth first")
        guard case let .success(allowed) = pacer.allowance(upTo: 65_536, at: t0 + second / 2) else { return XCTFail() }
        XCTAssertEqual(allowed, 1000)
        pacer.record(allowed)
        guard case .failure = pacer.allowance(upTo: 65_536, at: t0 + second / 2) else { return XCTFail("nothing more is due") }
        guard case let .success(small) = pacer.allowance(upTo: 10, at: t0 + 2 * second) else { return XCTFail() }
        XCTAssertEqual(small, 10, "never more than libcurl's buffer")
    }

    func testThatLimitsResolvePerRequestAndRefuseNonPositiveValues() {
        let session = RequestRateLimits(download: nil, upload: nil).resolved(sessionDownload: 100, sessionUpload: 50)
        XCTAssertEqual(session, RequestRateLimits(download: 100, upload: 50))
        let own = RequestRateLimits(download: 7, upload: nil).resolved(sessionDownload: 100, sessionUpload: 50)
        XCTAssertEqual(own, RequestRateLimits(download: 7, upload: 50), "the request's value replaces the session's")
        guard case .invalidBandwidthLimit(name: "maximumDownloadBytesPerSecond", bytesPerSecond: 0)? =
            RequestRateLimits(download: 0).validationError else { return XCTFail() }
        guard case .invalidBandwidthLimit(name: "maximumUploadBytesPerSecond", bytesPerSecond: -5)? =
            RequestRateLimits(upload: -5).validationError else { return XCTFail() }
        XCTAssertNil(RequestRateLimits(download: 1, upload: 1).validationError)
    }
}
