import Foundation
import XCTest
@testable import Curlfire

/// Handshake-time cost of evaluation: the verify callback's whole body (chain collection, evaluation,
/// result) for a presented leaf + intermediate.
final class TrustPerformanceTests: XCTestCase {
    private func averageMicroseconds(iterations: Int, _ body: () -> Void) -> Double {
        for _ in 0..<20 { body() }  // warm up
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations) / 1_000
    }

    private func callbackCost(_ bridge: TLSTrustBridge, expect expected: Int32, iterations: Int = 2_000) throws -> Double {
        let chain = try PresentedChain.valid.certificates()
        var results = Set<Int32>()
        let microseconds = averageMicroseconds(iterations: iterations) {
            _ = TLSLoopback.withStoreContext(presenting: chain) { results.insert(bridge.verify($0)) }
        }
        XCTAssertEqual(results, [expected])
        return microseconds
    }

    func testThatHandshakeTimeEvaluationTakesWellUnderAMillisecond() throws {
        // Sanitizers slow every instruction several-fold: a time bound means nothing there. The
        // Makefile's sanitize targets set CURLFIRE_SANITIZER; the skip is in Tests/skip-allowlist.txt.
        if let sanitizer = ProcessInfo.processInfo.environment["CURLFIRE_SANITIZER"], !sanitizer.isEmpty {
            throw XCTSkip("timing assertion: not meaningful under the \(sanitizer) sanitizer")
        }
        // Given
        let root = try TrustTestPKI.certificate("root-ca.pem")
        let systemLoadStart = DispatchTime.now().uptimeNanoseconds
        let system = TrustStore.loadSystemRoots()
        let systemLoadMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - systemLoadStart) / 1_000_000
        _ = TrustStore.system  // the cached store the bridges use
        let pinnedRootKey = try XCTUnwrap(root.publicKey)
        // When
        let trustedRoot = try callbackCost(TLSTrustBridge(host: "localhost", policy: nil, trustedRoots: [root]), expect: 1)
        let systemRoots = try callbackCost(TLSTrustBridge(host: "localhost", policy: nil, trustedRoots: []), expect: 0)
        let keyPin = try callbackCost(TLSTrustBridge(
            host: "localhost",
            policy: .pinPublicKeys(publicKeys: [pinnedRootKey], validateCertificateChain: true, validateHost: true),
            trustedRoots: [root]), expect: 1)
        // Then
        print("""
            [trust-perf] system roots: \(system.anchorCount) parsed once in \(String(format: "%.1f", systemLoadMilliseconds)) ms; \
            per handshake: default policy + trusted root \(String(format: "%.1f", trustedRoot)) µs, \
            default policy + system roots \(String(format: "%.1f", systemRoots)) µs, \
            pinned root key + chain \(String(format: "%.1f", keyPin)) µs
            """)
        XCTAssertGreaterThan(system.anchorCount, 0, "no system CA bundle found")
        XCTAssertLessThan(trustedRoot, 1_000)
        XCTAssertLessThan(systemRoots, 1_000, "the system store must be cached, not parsed per handshake")
        XCTAssertLessThan(keyPin, 1_000)
        TrustCaseCounter.add(3)
    }
}
