import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

/// File parts: MIME types from extensions and every typed failure.
final class MultipartFileTests: TemporaryDirectoryTestCase {
    func testThatTheMIMETypeComesFromTheExtension() throws {
        // Given
        let names = ["a.png": "image/png", "b.JPG": "image/jpeg", "c.json": "application/json",
                     "d.pdf": "application/pdf", "e.unknownext": "application/octet-stream"]
        for (name, mimeType) in names {
            let url = try makeFile(name, contents: Data("x".utf8))
            let form = MultipartFormData(boundary: "B")
            // When
            form.append(url, withName: "f")
            // Then
            let encoded = String(decoding: try form.encode(), as: UTF8.self)
            XCTAssertTrue(encoded.contains("filename=\"\(name)\"\r\nContent-Type: \(mimeType)\r\n"), encoded)
        }
    }

    func testThatAnExplicitFileNameAndMIMETypeAreUsed() throws {
        let url = try makeFile("raw", contents: Data("x".utf8))
        let form = MultipartFormData(boundary: "B")
        form.append(url, withName: "f", fileName: "shown.csv", mimeType: "text/csv")
        XCTAssertEqual(String(decoding: try form.encode(), as: UTF8.self),
                       "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"shown.csv\"\r\n"
                       + "Content-Type: text/csv\r\n\r\nx\r\n--B--\r\n")
    }

    func testThatAMissingFileThrowsNotReachable() {
        // Given
        let url = directory.appendingPathComponent("missing.txt")
        let form = MultipartFormData()
        // When
        form.append(url, withName: "f")
        // Then
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            if case let .bodyPartFileNotReachable(at) = reason { return at == url }
            return false
        }
        XCTAssertThrowsMultipartError(try form.writeEncodedData(to: self.directory.appendingPathComponent("out"))) {
            if case .bodyPartFileNotReachable = $0 { return true } else { return false }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    func testThatADirectoryThrowsIsDirectory() {
        let form = MultipartFormData()
        form.append(directory, withName: "f")
        form.append(directory, withName: "g", fileName: "x", mimeType: "text/plain")
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            if case let .bodyPartFileIsDirectory(at) = reason { return at == self.directory }
            return false
        }
    }

    func testThatAFileWithoutExtensionThrowsMIMETypeMissing() throws {
        // Given
        let url = try makeFile("README", contents: Data("x".utf8))
        let form = MultipartFormData()
        // When
        form.append(url, withName: "f")
        // Then
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            if case let .bodyPartMimeTypeMissing(for: at) = reason { return at == url }
            return false
        }
    }

    func testThatANonFileURLThrowsURLInvalid() {
        let url = URL(string: "https://example.com/a.png")!
        let form = MultipartFormData()
        form.append(url, withName: "f")
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            if case let .bodyPartURLInvalid(at) = reason { return at == url }
            return false
        }
    }

    func testThatOnlyTheFirstFailureIsKept() throws {
        let form = MultipartFormData()
        form.append(directory.appendingPathComponent("first.txt"), withName: "a")
        form.append(directory, withName: "b")
        form.append(Data("ok".utf8), withName: "c")
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            if case .bodyPartFileNotReachable = reason { return true } else { return false }
        }
    }

    /// An existing file that cannot be opened for reading. Permission bits do not stop root, so as root
    /// the test uses a Unix-domain socket: it exists and is not a directory, but `open(2)` fails with
    /// `ENXIO` for everyone. As another user it also checks a `chmod 000` file.
    func testThatAnUnreadableFileThrowsInputStreamCreationFailed() throws {
        // Given
        let socketURL = directory.appendingPathComponent("s.sock")
        let socketDescriptor = try bindUnixSocket(at: socketURL.path)
        defer { close(socketDescriptor) }
        var unreadable = [socketURL]
        if geteuid() != 0 {
            let url = try makeFile("locked.txt", contents: Data("x".utf8))
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: url.path)
            unreadable.append(url)
        }
        for url in unreadable {
            let form = MultipartFormData()
            // When
            form.append(url, withName: "f", fileName: "x.txt", mimeType: "text/plain")
            // Then
            XCTAssertThrowsMultipartError(try form.encode()) { reason in
                if case let .bodyPartInputStreamCreationFailed(for: at) = reason { return at == url }
                return false
            }
        }
    }

    func testThatAFileThatShrinksAfterAppendingThrowsInputStreamReadFailed() throws {
        // Given
        let url = try makeFile("shrinks.txt", contents: Data("0123456789".utf8))
        let form = MultipartFormData()
        form.append(url, withName: "f")
        try Data("0123".utf8).write(to: url)
        // When / Then
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            guard case let .inputStreamReadFailed(error) = reason,
                  let mismatch = error as? MultipartFormData.BodyPartLengthMismatch else { return false }
            return mismatch.expectedLength == 10 && mismatch.actualLength == 4 && mismatch.source == url.path
        }
    }

    func testThatAFileThatGrowsAfterAppendingIsReadUpToItsOriginalSize() throws {
        let url = try makeFile("grows.txt", contents: Data("0123".utf8))
        let form = MultipartFormData(boundary: "B")
        form.append(url, withName: "f")
        try Data("0123456789".utf8).write(to: url)
        let encoded = try form.encode()
        XCTAssertTrue(String(decoding: encoded, as: UTF8.self).hasSuffix("\r\n\r\n0123\r\n--B--\r\n"))
        XCTAssertEqual(UInt64(encoded.count), form.contentLength)
    }

    private func bindUnixSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return descriptor
    }
}
