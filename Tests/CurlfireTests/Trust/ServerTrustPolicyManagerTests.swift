import Foundation
import XCTest
@testable import Curlfire

final class ServerTrustPolicyManagerTests: XCTestCase {
    /// Identifies which policy was returned by the value of `validateHost`/case.
    private func tag(_ policy: ServerTrustPolicy?) -> String {
        switch policy {
        case nil: return "none"
        case .disableEvaluation: return "disable"
        case let .performDefaultEvaluation(validateHost): return validateHost ? "default" : "default-nohost"
        case .customEvaluation: return "custom"
        default: return "other"
        }
    }

    func testThatExactHostsMatchCaseInsensitively() {
        let manager = ServerTrustPolicyManager(policies: ["API.example.com": .disableEvaluation,
                                                          "127.0.0.1": .performDefaultEvaluation(validateHost: false)])
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "api.example.com")), "disable")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "Api.Example.Com")), "disable")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "api.example.com.")), "disable")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "127.0.0.1")), "default-nohost")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "example.com")), "none")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "other.example.com")), "none")
        XCTAssertEqual(manager.policies.count, 2)
    }

    func testThatWildcardsMatchExactlyOneLabelAndExactKeysWin() {
        let manager = ServerTrustPolicyManager(policies: [
            "*.example.com": .disableEvaluation,
            "special.example.com": .performDefaultEvaluation(validateHost: true),
        ])
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "a.example.com")), "disable")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "A.EXAMPLE.COM")), "disable")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "special.example.com")), "default")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "a.b.example.com")), "none")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "example.com")), "none")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: ".example.com")), "none")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "aexample.com")), "none")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "a.example.org")), "none")
    }

    func testThatASubclassCanReplaceTheLookup() {
        final class EverythingDisabled: ServerTrustPolicyManager, @unchecked Sendable {
            override func serverTrustPolicy(forHost host: String) -> ServerTrustPolicy? {
                host.hasSuffix(".test") ? .disableEvaluation : super.serverTrustPolicy(forHost: host)
            }
        }
        let manager: ServerTrustPolicyManager = EverythingDisabled(policies: ["localhost": .customEvaluation { _, _ in true }])
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "x.y.test")), "disable")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "localhost")), "custom")
        XCTAssertEqual(tag(manager.serverTrustPolicy(forHost: "example.com")), "none")
    }
}
