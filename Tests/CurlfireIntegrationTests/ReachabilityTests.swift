import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// NetworkReachabilityManager inside a network namespace created for the test (`unshare -n`):
/// bringing loopback up and down must flip the status and fire the listener.
final class ReachabilityTests: XCTestCase {
    func testThatLoopbackGoingUpAndDownFlipsTheStatusInANamespace() throws {
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ReachabilityProbe")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: probe.path), "missing \(probe.path)")
        let check = try Subprocess.run(["unshare", "-n", "true"])
        try XCTSkipIf(check.status != 0, "cannot create a network namespace here (unshare -n needs root or user namespaces)")

        let result = try Subprocess.run(["unshare", "-n", probe.path])
        let lines = result.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(result.status, 0, "\(lines)")
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
