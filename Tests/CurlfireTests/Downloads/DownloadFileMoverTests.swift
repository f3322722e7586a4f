@testable import Curlfire
import Foundation
import XCTest

final class DownloadFileMoverTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-mover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func source(_ text: String = "payload") throws -> URL {
        let url = directory.appendingPathComponent("src-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url
    }

    private func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    func testThatAMoveWithinAFileSystemRenames() throws {
        let from = try source()
        let to = directory.appendingPathComponent("out.bin")
        try DownloadFileMover.move(from, to: to, options: [])
        XCTAssertEqual(text(to), "payload")
        XCTAssertFalse(FileManager.default.fileExists(atPath: from.path))
    }

    func testThatAnOccupiedDestinationNeedsRemovePreviousFile() throws {
        let from = try source("new")
        let to = directory.appendingPathComponent("taken.txt")
        try Data("old".utf8).write(to: to)
        XCTAssertThrowsError(try DownloadFileMover.move(from, to: to, options: [])) { error in
            XCTAssertEqual((error as? POSIXError)?.code, .EEXIST, "the file system's own error: \(error)")
        }
        XCTAssertEqual(text(to), "old")
        XCTAssertEqual(text(from), "new", "the source stays when the move fails")
        try DownloadFileMover.move(from, to: to, options: .removePreviousFile)
        XCTAssertEqual(text(to), "new")
    }

    func testThatMissingDirectoriesNeedCreateIntermediateDirectories() throws {
        let from = try source()
        let to = directory.appendingPathComponent("a/b/c.txt")
        XCTAssertThrowsError(try DownloadFileMover.move(from, to: to, options: []))
        XCTAssertEqual(text(from), "payload")
        try DownloadFileMover.move(from, to: to, options: .createIntermediateDirectories)
        XCTAssertEqual(text(to), "payload")
    }

    func testThatADirectoryIsNeverReplaced() throws {
        let from = try source()
        let to = directory.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
        XCTAssertThrowsError(try DownloadFileMover.move(from, to: to, options: .removePreviousFile))
        XCTAssertThrowsError(try DownloadFileMover.move(from, to: to, options: []))
        XCTAssertEqual(text(from), "payload")
    }

    func testThatAMoveAcrossFileSystemsCopiesThenRemoves() throws {
        let shm = URL(fileURLWithPath: "/dev/shm")
        var tmpInfo = stat(), shmInfo = stat()
        try XCTSkipUnless(stat(shm.path, &shmInfo) == 0 && stat(directory.path, &tmpInfo) == 0
                          && tmpInfo.st_dev != shmInfo.st_dev, "/dev/shm is not a separate file system here")
        let other = shm.appendingPathComponent("curlfire-mover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: other) }
        let big = String(repeating: "0123456789abcdef", count: 200_000) // 3.2 MB: several copy chunks
        let from = try source(big)
        let to = other.appendingPathComponent("deep/out.bin")
        try DownloadFileMover.move(from, to: to, options: .createIntermediateDirectories)
        XCTAssertEqual(text(to), big)
        XCTAssertFalse(FileManager.default.fileExists(atPath: from.path))
        let second = try source("again")
        XCTAssertThrowsError(try DownloadFileMover.move(second, to: to, options: []), "no clobbering across file systems")
        XCTAssertEqual(text(second), "again")
        try DownloadFileMover.move(second, to: to, options: .removePreviousFile)
        XCTAssertEqual(text(to), "again")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: to.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, ["out.bin"], "no staging file is left behind")
    }
}
