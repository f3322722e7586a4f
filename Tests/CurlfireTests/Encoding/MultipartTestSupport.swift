import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

/// A stream that yields `data` in chunks of at most `chunkSize` bytes.
struct ChunkedDataStream: MultipartFormData.BodyPartStream {
    let data: Data
    var chunkSize: Int = 3
    var offset = 0

    init(_ data: Data, chunkSize: Int = 3) {
        self.data = data
        self.chunkSize = chunkSize
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(chunkSize, buffer.count, data.count - offset)
        guard count > 0 else { return 0 }
        data.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), from: offset..<(offset + count))
        offset += count
        return count
    }
}

/// A fresh temporary directory for one test, removed in `tearDown`.
class TemporaryDirectoryTestCase: XCTestCase {
    private(set) var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("curlfire-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    /// Writes `contents` to `name` in the test's directory.
    @discardableResult
    func makeFile(_ name: String, contents: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }
}

/// Asserts a multipart failure with a reason `check` accepts.
func XCTAssertThrowsMultipartError<T>(
    _ expression: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line,
    _ check: (CurlfireError.MultipartEncodingFailureReason) -> Bool
) {
    XCTAssertThrowsCurlfireError(try expression(), file: file, line: line) { error in
        guard case let .multipartEncodingFailed(reason) = error else {
            return XCTFail("Expected multipartEncodingFailed, got \(error)", file: file, line: line)
        }
        XCTAssertTrue(check(reason), "Unexpected reason \(reason)", file: file, line: line)
    }
}
