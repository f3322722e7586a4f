import Foundation
import XCTest
@testable import Curlfire

/// The chains the server presents in the offline trust matrix.
enum PresentedChain: String, CaseIterable {
    case valid, missingIntermediate, wrongIntermediate, expired, wrongHost, selfSigned, otherKey, revoked

    /// The presented certificates, leaf first.
    func certificates() throws -> [Certificate] {
        switch self {
        case .valid: return try TrustTestPKI.chain("leaf-chain.pem")
        case .missingIntermediate: return try TrustTestPKI.chain("leaf.pem")
        case .wrongIntermediate:
            return [try TrustTestPKI.certificate("leaf.pem"), try TrustTestPKI.certificate("other-intermediate-ca.pem")]
        case .expired: return try TrustTestPKI.chain("expired-chain.pem")
        case .wrongHost: return try TrustTestPKI.chain("wronghost-chain.pem")
        case .selfSigned: return try TrustTestPKI.chain("selfsigned.pem")
        case .otherKey: return try TrustTestPKI.chain("otherkey-chain.pem")
        case .revoked: return try TrustTestPKI.chain("revoked-chain.pem")
        }
    }
}

/// An expected evaluation outcome.
enum Expected: Equatable, CustomStringConvertible {
    case accepted
    case rejected(CurlfireError.ServerTrustFailureReason)

    static let unableToGetLocalIssuer = Expected.rejected(
        .chainInvalid(verifyError: 20, message: "unable to get local issuer certificate"))
    static let selfSignedLeaf = Expected.rejected(.chainInvalid(verifyError: 18, message: "self-signed certificate"))
    static let expiredCertificate = Expected.rejected(.certificateExpired)
    static let wrongHost = Expected.rejected(.hostMismatch)
    static let certificatePin = Expected.rejected(.certificatePinMismatch)
    static let keyPin = Expected.rejected(.publicKeyPinMismatch)
    static let revokedCertificate = Expected.rejected(.revoked(message: "certificate revoked"))

    init(_ result: Result<Void, CurlfireError.ServerTrustFailureReason>) {
        switch result {
        case .success: self = .accepted
        case let .failure(reason): self = .rejected(reason)
        }
    }

    var description: String {
        switch self {
        case .accepted: return "accepted"
        case let .rejected(reason): return "rejected(\(reason))"
        }
    }
}

/// Counts the trust cases evaluated across the suite; the total is printed when the test bundle finishes.
enum TrustCaseCounter {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var count = 0
    nonisolated(unsafe) private static var reporter: Reporter?

    static func add(_ number: Int = 1) {
        lock.lock()
        count += number
        let register = reporter == nil
        if register { reporter = Reporter() }
        let observer = reporter
        lock.unlock()
        if register, let observer { XCTestObservationCenter.shared.addTestObserver(observer) }
    }

    private final class Reporter: NSObject, XCTestObservation {
        func testBundleDidFinish(_ testBundle: Bundle) {
            print("[trust-cases] \(TrustCaseCounter.total) trust evaluations checked")
        }
    }

    static var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

extension XCTestCase {
    /// A fixed verification time inside every test certificate's validity: the leaf's notBefore plus a day.
    func matrixDate() throws -> Date {
        try TrustTestPKI.certificate("leaf.pem").notValidBefore.addingTimeInterval(86_400)
    }

    /// Evaluates `policy` against the test root at the matrix date for `host`.
    func outcome(
        _ policy: ServerTrustPolicy, _ chain: [Certificate], host: String = "localhost",
        anchors: [Certificate]? = nil, date: Date? = nil
    ) throws -> Expected {
        let trust = ServerTrust(certificates: chain,
                                anchorCertificates: try anchors ?? [TrustTestPKI.certificate("root-ca.pem")],
                                verificationDate: try date ?? matrixDate())
        let result = policy.evaluation(trust, forHost: host)
        // evaluate(_:forHost:) must agree with evaluation(_:forHost:).
        XCTAssertEqual(policy.evaluate(trust, forHost: host), Expected(result) == .accepted)
        TrustCaseCounter.add()
        return Expected(result)
    }

    /// Runs one policy against every presented chain and compares each outcome with `expected`.
    func assertMatrix(
        _ policy: ServerTrustPolicy, _ expected: [PresentedChain: Expected],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(Set(expected.keys), Set(PresentedChain.allCases), "every chain needs an expectation",
                       file: file, line: line)
        for chain in PresentedChain.allCases {
            let actual = try outcome(policy, chain.certificates())
            XCTAssertEqual(actual, expected[chain], "\(chain)", file: file, line: line)
        }
        // No certificates at all.
        let empty = try outcome(policy, [])
        switch policy {
        case .disableEvaluation: XCTAssertEqual(empty, .accepted, "empty chain", file: file, line: line)
        case .customEvaluation: break
        default: XCTAssertEqual(empty, .rejected(.noCertificatesFound), "empty chain", file: file, line: line)
        }
    }
}
