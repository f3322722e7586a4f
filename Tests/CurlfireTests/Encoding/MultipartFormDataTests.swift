import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

final class MultipartFormDataTests: TemporaryDirectoryTestCase {
    private func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    func testThatContentTypeNamesTheBoundary() {
        let form = MultipartFormData(boundary: "xyz")
        XCTAssertEqual(form.boundary, "xyz")
        XCTAssertEqual(form.contentType, "multipart/form-data; boundary=xyz")
    }

    func testThatTheDefaultBoundaryIsRandomAndWellFormed() {
        // When
        let first = MultipartFormData().boundary
        let second = MultipartFormData().boundary
        // Then
        XCTAssertNotEqual(first, second)
        XCTAssertTrue(first.hasPrefix("curlfire.boundary."))
        XCTAssertEqual(first.count, "curlfire.boundary.".count + 16)
        XCTAssertTrue(first.dropFirst("curlfire.boundary.".count).allSatisfy(\.isHexDigit))
    }

    func testThatAnEmptyFormEncodesToNothing() throws {
        let form = MultipartFormData(boundary: "B")
        XCTAssertEqual(try form.encode(), Data())
        XCTAssertEqual(form.contentLength, 0)
    }

    func testThatDataPartsEncodeToTheExactBytes() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(Data("plain".utf8), withName: "a")
        form.append(Data("{}".utf8), withName: "b", mimeType: "application/json")
        form.append(Data([0x00, 0xFF]), withName: "c", fileName: "c.bin", mimeType: "application/octet-stream")
        // When
        let encoded = try form.encode()
        // Then
        var expected = Data("""
        --B\r
        Content-Disposition: form-data; name="a"\r
        \r
        plain\r
        --B\r
        Content-Disposition: form-data; name="b"\r
        Content-Type: application/json\r
        \r
        {}\r
        --B\r
        Content-Disposition: form-data; name="c"; filename="c.bin"\r
        Content-Type: application/octet-stream\r
        \r

        """.utf8)
        expected.append(contentsOf: [0x00, 0xFF])
        expected.append(Data("\r\n--B--\r\n".utf8))
        XCTAssertEqual(encoded, expected)
        XCTAssertEqual(form.contentLength, UInt64(expected.count))
    }

    func testThatFileAndStreamPartsEncodeToTheExactBytes() throws {
        // Given
        let fileURL = try makeFile("notes.txt", contents: Data("file body".utf8))
        let form = MultipartFormData(boundary: "boundary")
        form.append(fileURL, withName: "doc")
        form.append(withLength: 11, name: "s", fileName: "s.dat", mimeType: "application/x-test") {
            ChunkedDataStream(Data("hello world".utf8))
        }
        // When
        let encoded = try form.encode()
        // Then
        XCTAssertEqual(text(encoded), """
        --boundary\r
        Content-Disposition: form-data; name="doc"; filename="notes.txt"\r
        Content-Type: text/plain\r
        \r
        file body\r
        --boundary\r
        Content-Disposition: form-data; name="s"; filename="s.dat"\r
        Content-Type: application/x-test\r
        \r
        hello world\r
        --boundary--\r

        """)
        XCTAssertEqual(form.contentLength, UInt64(encoded.count))
    }

    func testThatAStreamPartCanBeEncodedTwice() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(withLength: 5, name: "s", fileName: "s", mimeType: "text/plain") { ChunkedDataStream(Data("12345".utf8)) }
        // When
        let first = try form.encode()
        let second = try form.encode()
        // Then
        XCTAssertEqual(first, second)
        XCTAssertTrue(text(first).contains("\r\n\r\n12345\r\n--B--\r\n"))
    }

    func testThatAStreamThatEndsEarlyThrowsInputStreamReadFailed() {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(withLength: 10, name: "s", fileName: "s", mimeType: "text/plain") { ChunkedDataStream(Data("1234".utf8)) }
        // When / Then
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            guard case let .inputStreamReadFailed(error) = reason,
                  let mismatch = error as? MultipartFormData.BodyPartLengthMismatch else { return false }
            return mismatch.expectedLength == 10 && mismatch.actualLength == 4
        }
    }

    func testThatAStreamIsNeverReadPastItsLength() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(withLength: 4, name: "s", fileName: "s", mimeType: "text/plain") {
            ChunkedDataStream(Data("1234567890".utf8), chunkSize: 100)
        }
        // When
        let encoded = try form.encode()
        // Then
        XCTAssertTrue(text(encoded).contains("\r\n\r\n1234\r\n--B--"))
        XCTAssertEqual(form.contentLength, UInt64(encoded.count))
    }

    func testThatAStreamErrorIsWrappedAsInputStreamReadFailed() {
        struct Failing: MultipartFormData.BodyPartStream {
            struct Boom: Error {}
            mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { throw Boom() }
        }
        let form = MultipartFormData(boundary: "B")
        form.append(withLength: 1, name: "s", fileName: "s", mimeType: "text/plain") { Failing() }
        XCTAssertThrowsMultipartError(try form.encode()) { reason in
            if case let .inputStreamReadFailed(error) = reason { return error is Failing.Boom }
            return false
        }
    }

    func testThatQuotesAndLineBreaksInNamesAreEscaped() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(Data("v".utf8), withName: "a\"b\r\nX-Injected: 1", fileName: "f\"\n.txt", mimeType: "text/plain")
        // When
        let encoded = text(try form.encode())
        // Then
        XCTAssertTrue(encoded.contains(
            "Content-Disposition: form-data; name=\"a%22b%0D%0AX-Injected: 1\"; filename=\"f%22%0A.txt\"\r\n"))
        XCTAssertFalse(encoded.contains("\r\nX-Injected"))
    }

    func testThatNonASCIINamesAreWrittenAsUTF8() throws {
        let form = MultipartFormData(boundary: "B")
        form.append(Data("v".utf8), withName: "名前", fileName: "é😀.txt", mimeType: "text/plain")
        XCTAssertTrue(text(try form.encode()).contains("name=\"名前\"; filename=\"é😀.txt\""))
    }

    func testThatAMIMETypeWithALineBreakIsRefused() {
        // Given
        let form = MultipartFormData(boundary: "B")
        form.append(Data("v".utf8), withName: "a", mimeType: "text/plain\r\nX-Injected: 1")
        // When / Then
        XCTAssertThrowsCurlfireError(try form.encode()) { error in
            guard case let .invalidHeader(name) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "Content-Type")
        }
        XCTAssertEqual(form.contentLength, 0)
    }

    func testThatCustomHeadersAreWrittenInOrder() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        let headers: HTTPHeaders = ["Content-Disposition": "form-data; name=\"x\"", "X-Part": "1"]
        form.append(withLength: 2, headers: headers) { ChunkedDataStream(Data("ok".utf8)) }
        // When / Then
        XCTAssertEqual(text(try form.encode()),
                       "--B\r\nContent-Disposition: form-data; name=\"x\"\r\nX-Part: 1\r\n\r\nok\r\n--B--\r\n")
    }

    func testThatFormsCanBeBuiltFromManyThreads() throws {
        // Given
        let form = MultipartFormData(boundary: "B")
        // When
        DispatchQueue.concurrentPerform(iterations: 100) { index in
            form.append(Data("\(index)".utf8), withName: "f\(index)")
        }
        // Then
        let encoded = try form.encode()
        XCTAssertEqual(UInt64(encoded.count), form.contentLength)
        XCTAssertEqual(text(encoded).components(separatedBy: "\r\n--B").count, 101)
    }
}
