import Curlfire
import Foundation
import XCTest

/// `CurlfireVersion` is the newest released version of CHANGELOG.md (the first `## [x.y.z]` heading
/// after "Unreleased"): a release changes both in one commit.
final class CurlfireVersionTests: XCTestCase {
    private static let changelog = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CHANGELOG.md")

    /// The versions of the changelog's `## [x.y.z] - YYYY-MM-DD` headings, newest first.
    private func releasedVersions() throws -> [String] {
        let text = try String(contentsOf: Self.changelog, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\] - \d{4}-\d{2}-\d{2}$"#,
                                              options: [.anchorsMatchLines])
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    func testThatTheVersionIsTheChangelogsNewestRelease() throws {
        let versions = try releasedVersions()
        XCTAssertFalse(versions.isEmpty, "no `## [x.y.z] - date` heading in \(Self.changelog.path)")
        XCTAssertEqual(CurlfireVersion, versions.first, "CurlfireVersion and CHANGELOG.md's newest release differ")
    }

    func testThatTheChangelogKeepsAnUnreleasedSectionOnTop() throws {
        let text = try String(contentsOf: Self.changelog, encoding: .utf8)
        let unreleased = try XCTUnwrap(text.range(of: "## [Unreleased]"), "no Unreleased section")
        let newest = try XCTUnwrap(text.range(of: "## [\(CurlfireVersion)]"))
        XCTAssertLessThan(unreleased.lowerBound, newest.lowerBound)
    }

    func testThatTheVersionIsSemantic() {
        XCTAssertNotNil(CurlfireVersion.range(of: #"^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$"#, options: .regularExpression), CurlfireVersion)
    }
}
