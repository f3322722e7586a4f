import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Slow, throttled, chunked and broken responses reach Curlfire as typed outcomes, never hangs.
final class MockServerDeliveryTests: XCTestCase {
    func testThatADelayedResponseTimesOutAShortRequestTimeout() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse.text("late").delayed(by: 2))
        var request = URLRequest(url: server.url("/slow"))
        request.timeoutInterval = 0.3
        let started = Date()
        let response = await SessionManager().request(request).serializingData().response
        let elapsed = Date().timeIntervalSince(started)

        guard case .sessionTaskFailed(code: .timedOut, _)? = response.error else {
            return XCTFail("expected a timeout, got \(response.debugDescription)")
        }
        XCTAssertLessThan(elapsed, 1.8, "the request gave up before the response came")
    }

    func testThatADelayedResponseArrivesAfterItsDelay() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse.text("late").delayed(by: 0.3))
        let started = Date()
        let value = try await SessionManager().request(server.url("/slow")).serializingString().value
        XCTAssertEqual(value, "late")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.29)
    }

    func testThatAThrottledBodyTakesAboutItsPace() async throws {
        let server = try MockServer()
        let body = Data(repeating: 0x61, count: 40_000)
        server.enqueue(MockResponse(body: body).throttled(bytesPerSecond: 80_000))  // about 0.5 s
        let started = Date()
        let data = try await SessionManager().request(server.url("/drip")).serializingData().value
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(data, body)
        XCTAssertGreaterThanOrEqual(elapsed, 0.35)
        XCTAssertLessThan(elapsed, 3)
    }

    func testThatAChunkedBodyIsReassembled() async throws {
        let server = try MockServer()
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        server.enqueue(MockResponse(body: body).chunked())
        let response = await SessionManager().request(server.url("/chunked")).serializingData().response
        XCTAssertEqual(response.value, body)
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Transfer-Encoding"), "chunked")
        XCTAssertNil(response.response?.value(forHTTPHeaderField: "Content-Length"))
    }

    func testThatEachDisconnectPointIsConnectionLost() async throws {
        for (point, secure) in [(MockResponse.DisconnectPoint.beforeHeaders, false), (.afterHeaders, false),
                                (.midBody, false), (.beforeHeaders, true), (.afterHeaders, true), (.midBody, true)] {
            let server = try MockServer(tls: secure ? .selfSigned() : nil)
            var configuration = SessionConfiguration()
            configuration.trustedRootCertificates = server.certificate.map { [$0] } ?? []
            configuration.timeoutIntervalForRequest = 10
            server.enqueue(MockResponse(body: Data(repeating: 1, count: 100_000)).disconnect(point))
            let started = Date()
            let response = await SessionManager(configuration: configuration)
                .request(server.url("/broken")).serializingData().response
            let label = "\(point) over \(secure ? "HTTPS" : "HTTP")"
            guard case .sessionTaskFailed(code: .connectionLost, _)? = response.error else {
                XCTFail("\(label): expected connectionLost, got \(response.debugDescription)")
                continue
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, label)
            XCTAssertEqual(server.requestCount, 1, label)
        }
    }

    func testThatA64MiBResponseStreamsToADownloadWithoutASecondCopy() async throws {
        let server = try MockServer()
        let size = 64 * 1024 * 1024
        server.enqueue(MockResponse(body: Data(repeating: 0x5A, count: size)))  // resident from here on
        let canMeasure = Self.resetPeakMemory()
        let baseline = Self.memoryKilobytes("VmRSS")
        let response = await SessionManager().download(server.url("/big")).serializingDownloadedFileURL().response
        let growth = Self.memoryKilobytes("VmHWM") - baseline
        let file = try XCTUnwrap(response.value, "\(response.debugDescription)")
        defer { try? FileManager.default.removeItem(at: file) }
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, size)
        if canMeasure {
            // A second copy of the body (server or client side) would add 64 MiB.
            XCTAssertLessThan(growth, 40 * 1024, "peak memory grew by \(growth) KiB while sending 64 MiB")
        }
    }

    /// Resets `VmHWM` to the current resident size; `false` where /proc/self/clear_refs is not writable.
    private static func resetPeakMemory() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// A field of /proc/self/status in KiB (`VmRSS`, `VmHWM`), or 0.
    private static func memoryKilobytes(_ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int($0) }.first ?? 0
    }

    func testThatShutdownEndsAResponseInProgressPromptly() async throws {
        let server = try MockServer()
        server.enqueue(MockResponse(body: Data(count: 1_000_000)).throttled(bytesPerSecond: 10_000))
        let session = SessionManager()
        async let response = session.request(server.url("/forever")).serializingData().response
        XCTAssertNotNil(server.takeRequest(timeout: 5), "the request arrived")
        let started = Date()
        server.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "shutdown did not wait for the response")
        let finished = await response
        XCTAssertEqual(finished.error?.transportErrorCode, .connectionLost, "\(finished.debugDescription)")
        server.shutdown()  // a second call does nothing
    }
}
