@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// The file sink's decisions, driven with response heads and chunks as libcurl would (no network).
final class DownloadFileSinkTests: XCTestCase {
    private var files: [URL] = []

    override func tearDown() {
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    private func head(_ lines: [String]) -> ResponseHead {
        var head = ResponseHead()
        for line in lines + [""] {
            Array((line + "\r\n").utf8).withUnsafeBufferPointer { head.consume($0) }
        }
        return head
    }

    private func write(_ sink: FileSink, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { sink.write($0) }
    }

    private func partial(_ text: String) throws -> (URL, FileSink.Plan) {
        let file = DownloadLocations.newTemporaryFile()
        files.append(file)
        try Data(text.utf8).write(to: file)
        let plan = FileSink.Plan(fileURL: file, resumeOffset: Int64(text.utf8.count),
                                 validators: ResumeValidators(entityTag: "\"v1\""),
                                 resumeRequest: .init(url: "http://h/f", method: "GET", headers: [:]))
        return (file, plan)
    }

    private func contents(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "<missing>" }

    func testThatAFreshDownloadWritesFromByteZeroAndResumeDataNeedsAValidator() throws {
        let file = DownloadLocations.newTemporaryFile()
        files.append(file)
        let sink = FileSink(plan: .init(fileURL: file))
        sink.responseHeadDidComplete(head(["HTTP/1.1 200 OK", "Content-Length: 10", "ETag: \"e1\""]))
        XCTAssertTrue(write(sink, "hello"))
        sink.close()
        XCTAssertEqual(contents(file), "hello")
        XCTAssertEqual(sink.byteCount, 5)
        let request = URLRequest(url: URL(string: "http://h/f")!)
        let resume = try DownloadResumeData.decode(try XCTUnwrap(sink.resumeData(for: request)))
        XCTAssertEqual(resume.bytesReceived, 5)
        XCTAssertEqual(resume.totalBytes, 10)
        XCTAssertEqual(resume.entityTag, "\"e1\"")

        let bare = FileSink(plan: .init(fileURL: DownloadLocations.newTemporaryFile()))
        files.append(bare.fileURL)
        bare.responseHeadDidComplete(head(["HTTP/1.1 200 OK", "Content-Length: 10"]))
        XCTAssertTrue(write(bare, "abc"))
        XCTAssertNil(bare.resumeData(for: request), "no ETag or Last-Modified: nothing safe to resume")
        let gzip = FileSink(plan: .init(fileURL: DownloadLocations.newTemporaryFile()))
        files.append(gzip.fileURL)
        gzip.responseHeadDidComplete(head(["HTTP/1.1 200 OK", "ETag: \"g\"", "Content-Encoding: gzip"]))
        XCTAssertTrue(write(gzip, "abc"))
        XCTAssertNil(gzip.resumeData(for: request), "decoded bytes are not server byte positions")
    }

    func testThatA206AppendsAtItsContentRange() throws {
        let (file, plan) = try partial("hello ")
        let sink = FileSink(plan: plan)
        sink.responseHeadDidComplete(head(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 6-10/11"]))
        XCTAssertEqual(sink.bytesBeforeBody, 6)
        XCTAssertTrue(write(sink, "world"))
        sink.close()
        XCTAssertEqual(contents(file), "hello world")
        XCTAssertEqual(sink.byteCount, 11)
    }

    func testThatA206StartingEarlierRewritesFromThere() throws {
        let (file, plan) = try partial("hello ")
        let sink = FileSink(plan: plan)
        sink.responseHeadDidComplete(head(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 5-10/11"]))
        XCTAssertTrue(write(sink, " world"))
        sink.close()
        XCTAssertEqual(contents(file), "hello world")
    }

    func testThatA200StartsTheSameFileOver() throws {
        let (file, plan) = try partial("stale bytes that are longer")
        let sink = FileSink(plan: plan)
        sink.responseHeadDidComplete(head(["HTTP/1.1 200 OK", "Content-Length: 5"]))
        XCTAssertEqual(sink.bytesBeforeBody, 0)
        XCTAssertTrue(write(sink, "fresh"))
        sink.close()
        XCTAssertEqual(contents(file), "fresh")
        XCTAssertFalse(sink.holdsPartialOfEarlierTransfer)
    }

    func testThatA416OrARangeAfterTheBytesOnDiskIsRefusedAndThePartialKept() throws {
        for lines in [["HTTP/1.1 416 Range Not Satisfiable", "Content-Range: bytes */3"],
                      ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 9-10/11"],
                      ["HTTP/1.1 206 Partial Content"]] {
            let (file, plan) = try partial("hello ")
            let sink = FileSink(plan: plan)
            sink.responseHeadDidComplete(head(lines))
            XCTAssertFalse(write(sink, "<html>"), "\(lines)")
            sink.close()
            guard case .invalidResumeData? = sink.failure else { return XCTFail("\(lines): \(String(describing: sink.failure))") }
            XCTAssertEqual(contents(file), "hello ", "\(lines)")
            XCTAssertNil(sink.resumeData(for: nil))
        }
    }

    func testThatAnErrorPageWhileResumingGoesToANewFile() throws {
        let (file, plan) = try partial("hello ")
        let sink = FileSink(plan: plan)
        sink.responseHeadDidComplete(head(["HTTP/1.1 503 Service Unavailable", "Content-Length: 4"]))
        XCTAssertTrue(write(sink, "busy"))
        sink.close()
        files.append(sink.fileURL)
        XCTAssertNotEqual(sink.fileURL, file)
        XCTAssertEqual(contents(sink.fileURL), "busy")
        XCTAssertEqual(contents(file), "hello ", "the partial file is untouched")
    }

    func testThatAResumeThatGotNoHeadKeepsItsResumeData() throws {
        let (file, plan) = try partial("hello ")
        let sink = FileSink(plan: plan)
        sink.close()
        let resume = try DownloadResumeData.decode(try XCTUnwrap(sink.resumeData(for: nil)))
        XCTAssertEqual(resume.bytesReceived, 6)
        XCTAssertEqual(resume.temporaryFile, file.path)
        XCTAssertTrue(sink.holdsPartialOfEarlierTransfer)
    }

    func testThatAVanishedPartialFileFailsTheWrite() throws {
        let (file, plan) = try partial("hello ")
        try FileManager.default.removeItem(at: file)
        let sink = FileSink(plan: plan)
        sink.responseHeadDidComplete(head(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 6-10/11"]))
        XCTAssertFalse(write(sink, "world"))
        XCTAssertNotNil(sink.failure)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "a vanished partial file is not recreated")
    }
}

final class DownloadFileSinkLifetimeTests: XCTestCase {
    func testThatADroppedAttemptRemovesItsFileUnlessKept() {
        let dropped = DownloadLocations.newTemporaryFile()
        let kept = DownloadLocations.newTemporaryFile()
        defer { try? FileManager.default.removeItem(at: kept) }
        for (url, keep) in [(dropped, false), (kept, true)] {
            var sink: FileSink? = FileSink(plan: .init(fileURL: url))
            _ = Array("abc".utf8).withUnsafeBytes { sink!.write($0) }
            sink!.close()
            if keep { sink!.keepFile() }
            XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
            sink = nil
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dropped.path), "a retried attempt leaves no file")
        XCTAssertTrue(FileManager.default.fileExists(atPath: kept.path))
    }
}
