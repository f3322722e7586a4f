import Foundation
import XCTest
@testable import Curlfire

/// Certificates, keys, stores and bridges are shared between threads: evaluate from many at once.
final class TrustConcurrencyTests: XCTestCase {
    func testThatConcurrentEvaluationsAgreeWithSerialOnes() throws {
        // Given
        let root = try TrustTestPKI.certificate("root-ca.pem")
        let date = try matrixDate()
        let chains = try PresentedChain.allCases.map { try $0.certificates() }
        let policies: [ServerTrustPolicy] = [
            .performDefaultEvaluation(validateHost: true),
            .performRevokedEvaluation(validateHost: true,
                                      revocationFlags: [.crl(try TrustTestPKI.revocationLists()), .crlCheckWholeChain]),
            .pinPublicKeys(publicKeys: [try XCTUnwrap(root.publicKey)], validateCertificateChain: true, validateHost: true),
            .pinCertificates(certificates: [root], validateCertificateChain: true, validateHost: true),
        ]
        let bridge = TLSTrustBridge(host: "localhost", policy: nil, trustedRoots: [root])
        let systemBridge = TLSTrustBridge(host: "localhost", policy: nil, trustedRoots: [])
        @Sendable func evaluateAll() -> [Bool] {
            policies.flatMap { policy in
                chains.map { policy.evaluate(ServerTrust(certificates: $0, anchorCertificates: [root],
                                                         verificationDate: date), forHost: "localhost") }
            } + chains.map { (try? bridge.evaluate($0).get()) != nil }
              + chains.map { (try? systemBridge.evaluate($0).get()) != nil }
        }
        let serial = evaluateAll()
        let results = LockedBox<[[Bool]]>([])
        // When
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let mine = evaluateAll()
            results.mutate { $0.append(mine) }
        }
        // Then
        XCTAssertEqual(results.get().count, 16)
        for result in results.get() { XCTAssertEqual(result, serial) }
        XCTAssertTrue(serial.contains(true))
        XCTAssertTrue(serial.contains(false))
    }
}
