import Curlfire
import Foundation
import XCTest

/// NetworkReachabilityManager inside a network namespace created for the test (`unshare -n`):
/// bringing loopback up and down must flip the status and fire the listener.
final class ReachabilityTests: XCTestCase {
    func testThatLoopbackGoingUpAndDownFlipsTheStatusInANamespace() throws {
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ReachabilityProbe")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: probe.path), "missing \(probe.path)")
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["unshare", "-n", "true"]
        check.standardError = Pipe()
        try check.run()
        check.waitUntilExit()
        try XCTSkipIf(check.terminationStatus != 0, "cannot create a network namespace here (unshare -n needs root or user namespaces)")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["unshare", "-n", probe.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(process.terminationStatus, 0, "\(lines)")
        XCTAssertEqual(lines, [
            "status notReachable isReachable=false",
            "status reachable(ethernetOrWiFi) isReachable=true",
            "status notReachable isReachable=false",
            "status reachable(ethernetOrWiFi) isReachable=true",
        ])
    }

    func testThatTheSurfaceAnswersOnTheHostNetwork() {
        XCTAssertNil(NetworkReachabilityManager(host: ""))
        let loopback = NetworkReachabilityManager(host: "127.0.0.1")
        XCTAssertEqual(loopback?.networkReachabilityStatus, .reachable(.ethernetOrWiFi))
        XCTAssertEqual(loopback?.isReachableOnEthernetOrWiFi, true)
        XCTAssertEqual(loopback?.isReachableOnWWAN, false)
        XCTAssertEqual(NetworkReachabilityManager(host: "no-such-host.invalid")?.isReachable, false)
        XCTAssertNotNil(NetworkReachabilityManager())
    }
}
