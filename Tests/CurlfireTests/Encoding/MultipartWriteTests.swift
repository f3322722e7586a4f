import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

/// `writeEncodedData(to:)` and `makeUploadable(threshold:temporaryDirectory:)`.
final class MultipartWriteTests: TemporaryDirectoryTestCase {
    private func smallForm() throws -> MultipartFormData {
        let form = MultipartFormData(boundary: "B")
        form.append(Data("value".utf8), withName: "field")
        form.append(try makeFile("a.txt", contents: Data("file".utf8)), withName: "file")
        form.append(withLength: 6, name: "s", fileName: "s.bin", mimeType: "application/octet-stream") {
            ChunkedDataStream(Data("stream".utf8))
        }
        return form
    }

    func testThatWrittenDataEqualsEncodedData() throws {
        // Given
        let form = try smallForm()
        let output = directory.appendingPathComponent("out.multipart")
        // When
        try form.writeEncodedData(to: output)
        // Then
        XCTAssertEqual(try Data(contentsOf: output), try form.encode())
    }

    func testThatAnExistingFileIsNeverOverwritten() throws {
        // Given
        let form = try smallForm()
        let output = try makeFile("exists", contents: Data("keep me".utf8))
        // When / Then
        XCTAssertThrowsMultipartError(try form.writeEncodedData(to: output)) { reason in
            if case let .outputStreamFileAlreadyExists(at) = reason { return at == output }
            return false
        }
        XCTAssertEqual(try Data(contentsOf: output), Data("keep me".utf8))
    }

    func testThatANonFileOrUncreatableDestinationThrowsURLInvalidOrCreationFailed() throws {
        let form = try smallForm()
        XCTAssertThrowsMultipartError(try form.writeEncodedData(to: URL(string: "https://example.com/x")!)) {
            if case .outputStreamURLInvalid(url: URL(string: "https://example.com/x")!) = $0 { return true } else { return false }
        }
        let noDirectory = directory.appendingPathComponent("missing/dir/out")
        XCTAssertThrowsMultipartError(try form.writeEncodedData(to: noDirectory)) {
            if case .outputStreamCreationFailed = $0 { return true } else { return false }
        }
    }

    func testThatAFailedWriteRemovesThePartialFile() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(Data("first".utf8), withName: "a")
        form.append(withLength: 10, name: "s", fileName: "s", mimeType: "text/plain") { ChunkedDataStream(Data("short".utf8)) }
        let output = directory.appendingPathComponent("partial")
        // When
        XCTAssertThrowsMultipartError(try form.writeEncodedData(to: output)) {
            if case .inputStreamReadFailed = $0 { return true } else { return false }
        }
        // Then
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }

    func testThatSmallFormsBecomeDataAndLargeFormsBecomeFiles() throws {
        // Given
        let form = try smallForm()
        let expected = try form.encode()
        // When
        let small = try form.makeUploadable(threshold: MultipartFormData.encodingMemoryThreshold,
                                            temporaryDirectory: directory)
        let large = try form.makeUploadable(threshold: 10, temporaryDirectory: directory)
        // Then
        guard case let .data(data) = small else { return XCTFail("Expected data, got \(small)") }
        XCTAssertEqual(data, expected)
        guard case let .file(url, removeAfterUpload) = large else { return XCTFail("Expected a file, got \(large)") }
        XCTAssertTrue(removeAfterUpload)
        XCTAssertEqual(url.deletingLastPathComponent().lastPathComponent, "curlfire.multipart")
        XCTAssertEqual(try Data(contentsOf: url), expected)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(permissions?.intValue, 0o600)
        XCTAssertEqual(MultipartFormData.encodingMemoryThreshold, 10_000_000)
    }

    func testThatMakeUploadableThrowsARecordedFailureWithoutWriting() {
        let form = MultipartFormData()
        form.append(directory.appendingPathComponent("missing.txt"), withName: "f")
        XCTAssertThrowsMultipartError(try form.makeUploadable(threshold: 0, temporaryDirectory: self.directory)) {
            if case .bodyPartFileNotReachable = $0 { return true } else { return false }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("curlfire.multipart").path))
    }

    // MARK: - Memory

    /// Streams a 20 MiB file part to disk and checks the process's peak resident memory grew far less
    /// than the file. The peak is reset first through `/proc/self/clear_refs`; as a control, encoding
    /// the same form in memory must grow the peak well past the streaming bound (checked against 12 MiB,
    /// twice that bound). `resetPeak()` trims the heap first, so neither step can hide in pages
    /// earlier tests freed but left resident.
    func testThatWritingA20MBFilePartKeepsPeakMemoryLow() throws {
        // Given
        let chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let bigURL = directory.appendingPathComponent("big.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: bigURL.path, contents: nil))
        let handle = try FileHandle(forWritingTo: bigURL)
        for _ in 0..<20 { try handle.write(contentsOf: chunk) }
        try handle.close()
        let form = MultipartFormData(boundary: "B")
        form.append(bigURL, withName: "big")
        let output = directory.appendingPathComponent("big.multipart")
        try XCTSkipUnless(ProcessMemory.resetPeak(), "/proc/self/clear_refs is not writable here")

        // When
        let baseline = try ProcessMemory.kilobytes("VmRSS")
        try form.writeEncodedData(to: output)
        let streamingGrowth = try ProcessMemory.kilobytes("VmHWM") - baseline

        XCTAssertTrue(ProcessMemory.resetPeak())
        let controlBaseline = try ProcessMemory.kilobytes("VmRSS")
        let inMemory = try form.encode()
        let inMemoryGrowth = try ProcessMemory.kilobytes("VmHWM") - controlBaseline

        // Then
        XCTAssertLessThan(streamingGrowth, 6 * 1024, "peak grew \(streamingGrowth) KiB while streaming")
        XCTAssertGreaterThan(inMemoryGrowth, 12 * 1024, "the meter must see an in-memory encode")
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.uint64Value, form.contentLength)
        XCTAssertEqual(UInt64(inMemory.count), form.contentLength)
        let written = try FileHandle(forReadingFrom: output)
        defer { try? written.close() }
        let header = Data("--B\r\nContent-Disposition: form-data; name=\"big\"; filename=\"big.bin\"\r\n".utf8)
            + Data("Content-Type: application/octet-stream\r\n\r\n".utf8)
        XCTAssertEqual(try written.read(upToCount: header.count), header)
        XCTAssertEqual(try written.read(upToCount: chunk.count), chunk)
        try written.seek(toOffset: UInt64(header.count) + UInt64(19 * chunk.count))
        XCTAssertEqual(try written.read(upToCount: chunk.count), chunk)
        XCTAssertEqual(try written.readToEnd(), Data("\r\n--B--\r\n".utf8))
    }
}

/// Reads this process's memory figures from `/proc/self/status`.
enum ProcessMemory {
    struct Missing: Error {}

    /// The value of a `Vm…` line, in KiB.
    static func kilobytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            if let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first,
               let kilobytes = Int(value.trimmingCharacters(in: .whitespaces)) {
                return kilobytes
            }
        }
        throw Missing()
    }

    /// Resets `VmHWM` to the current resident size; `false` when the kernel refuses.
    ///
    /// Free heap memory is handed back to the kernel first (`malloc_trim`): otherwise an
    /// allocation could be served from pages earlier tests freed but left resident (glibc raises
    /// its mmap threshold up to 32 MiB after large frees, so a 20 MiB buffer may come from the
    /// heap), and the peak would not show it — which made the control below miss an in-memory
    /// encode in full-suite runs (10.7 and 17.2 MiB of growth for 20 MiB).
    static func resetPeak() -> Bool {
        trimHeap()
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: Data("5".utf8)) } catch { return false }
        return true
    }

    /// glibc's `malloc_trim(0)`, found at run time (Swift's Glibc module does not export `malloc.h`);
    /// does nothing where the symbol is missing (another C library, or a sanitizer's allocator, where
    /// the memory tests are skipped anyway).
    private static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
