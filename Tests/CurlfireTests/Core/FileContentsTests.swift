@testable import Curlfire
import Foundation
import XCTest

/// FileContents reads a file whole, answering an empty one without Foundation (whose
/// `readBytesFromFile` leaks 4 KiB per empty file read).
final class FileContentsTests: XCTestCase {
    func testThatEmptyFullAndMissingFilesRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("file-contents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty")
        let full = directory.appendingPathComponent("full")
        try Data().write(to: empty)
        try Data([1, 2, 3, 0, 255]).write(to: full)
        XCTAssertEqual(FileContents.read(atPath: empty.path), Data())
        XCTAssertEqual(FileContents.read(atPath: full.path), Data([1, 2, 3, 0, 255]))
        XCTAssertNil(FileContents.read(atPath: directory.appendingPathComponent("missing").path))
    }
}
