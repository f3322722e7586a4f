import CurlfireTesting
import Foundation
import XCTest

/// Servers start and stop quickly and leave nothing behind.
final class MockServerLifecycleTests: XCTestCase {
    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    func testThatServersReleaseTheirSocketsAndThreadsWhenReleased() throws {
        let before = openDescriptorCount()
        for round in 0..<20 {
            let server = try MockServer(tls: round % 4 == 0 ? .selfSigned() : nil)
            let connection = try RawConnection(port: server.port)  // one open, idle connection each
            if round % 2 == 0 { server.shutdown() }                // the others shut down on deinit
            _ = connection
        }
        XCTAssertLessThanOrEqual(openDescriptorCount(), before + 2, "listeners, pipes and connections closed")
    }

    func testThatShutdownWithAnIdleKeptAliveConnectionIsPrompt() throws {
        let server = try MockServer()
        server.enqueue(.text("hi"))
        let connection = try RawConnection(port: server.port)
        connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(connection.read(until: "hi").hasSuffix("hi"))
        let started = Date()
        server.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(connection.read(until: "\u{0}"), "", "the server closed the kept-alive connection")
        XCTAssertNotNil(server.takeRequest(timeout: 0), "recorded requests outlive shutdown")
        XCTAssertNil(server.takeRequest(timeout: 1), "after shutdown an empty server answers at once")
    }
}
