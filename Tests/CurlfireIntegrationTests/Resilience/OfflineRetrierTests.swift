import Curlfire
import CurlfireTestSupport
import Foundation
import XCTest

/// `OfflineRetrier` in a network namespace of its own (`unshare -n`, as ReachabilityTests):
/// ReachabilityProbe's `offline-retrier` scenario takes `lo` down and up around a MockServer.
final class OfflineRetrierTests: XCTestCase {
    func testThatARequestWaitsForTheNetworkAndIsRetriedWhenItIsBack() throws {
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ReachabilityProbe")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: probe.path), "missing \(probe.path)")
        let check = try Subprocess.run(["unshare", "-n", "true"])
        try XCTSkipIf(check.status != 0, "cannot create a network namespace here (unshare -n needs root or user namespaces)")

        let result = try Subprocess.run(["unshare", "-n", probe.path, "offline-retrier"])
        let lines = result.text.split(separator: "\n").map(String.init)
        print(lines.map { "OfflineRetrierTests: " + $0 }.joined(separator: "\n"))
        XCTAssertEqual(result.status, 0, "\(lines)")
        XCTAssertEqual(lines.count, 7, "\(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("ok ") }, "\(lines)")
    }
}
