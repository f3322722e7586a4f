import Foundation
import XCTest
@testable import Curlfire

final class RevocationFlagsTests: XCTestCase {
    func testThatCombiningFlagsKeepsTheAttachedCRLs() throws {
        // Given
        let lists = try TrustTestPKI.revocationLists()
        XCTAssertEqual(lists.count, 2)
        // When
        let literal: RevocationFlags = [.crlCheckWholeChain, .crl([lists[0]]), .crl([lists[1], lists[0]])]
        var inserted = RevocationFlags.requirePositiveResponse
        inserted.insert(.crl(lists))
        // Then
        XCTAssertEqual(literal.revocationLists, lists)
        XCTAssertTrue(literal.contains(.crl))
        XCTAssertTrue(literal.contains(.crlCheckWholeChain))
        XCTAssertFalse(literal.contains(.requireStapledOCSP))
        XCTAssertEqual(literal, [.crl, .crlCheckWholeChain])
        XCTAssertEqual(inserted.revocationLists, lists)
        XCTAssertEqual(inserted, [.crl, .requirePositiveResponse])
        XCTAssertEqual(literal.union(.requireStapledOCSP).revocationLists, lists)
        XCTAssertEqual(literal.subtracting(.crlCheckWholeChain).revocationLists, lists)
        XCTAssertEqual(literal.subtracting(.crlCheckWholeChain), .crl)
        XCTAssertEqual(literal.intersection(.crl).revocationLists, lists)
        var removed = literal
        removed.remove(.crl)
        XCTAssertEqual(removed, .crlCheckWholeChain)
        XCTAssertEqual(removed.revocationLists, lists)
        XCTAssertTrue(RevocationFlags().isEmpty)
        XCTAssertTrue(RevocationFlags.crl.revocationLists.isEmpty)
    }
}
