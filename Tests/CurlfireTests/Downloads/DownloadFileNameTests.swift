@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

final class DownloadFileNameTests: XCTestCase {
    func testThatPathTraversalNamesAreReducedToTheirLastComponent() {
        XCTAssertEqual(DownloadFileName.sanitize("../../etc/passwd"), "passwd")
        XCTAssertEqual(DownloadFileName.sanitize("..\\..\\windows\\win.ini"), "win.ini")
        XCTAssertEqual(DownloadFileName.sanitize("/absolute/path.txt"), "path.txt")
        XCTAssertEqual(DownloadFileName.sanitize("dir/"), "dir")
    }

    func testThatDotNamesControlCharactersAndEmptyNamesAreRefused() {
        XCTAssertNil(DownloadFileName.sanitize(".."))
        XCTAssertNil(DownloadFileName.sanitize("."))
        XCTAssertNil(DownloadFileName.sanitize("../.."))
        XCTAssertNil(DownloadFileName.sanitize(""))
        XCTAssertNil(DownloadFileName.sanitize("  \t "))
        XCTAssertEqual(DownloadFileName.sanitize(".bashrc"), "bashrc")
        XCTAssertEqual(DownloadFileName.sanitize("a\u{0}b\nc\r.txt"), "abc.txt")
        XCTAssertEqual(DownloadFileName.sanitize("report. "), "report")
    }

    func testThatLongNamesAreShortenedKeepingTheExtension() throws {
        let long = String(repeating: "é", count: 300) + ".tar"
        let safe = try XCTUnwrap(DownloadFileName.sanitize(long))
        XCTAssertLessThanOrEqual(safe.utf8.count, 255)
        XCTAssertTrue(safe.hasSuffix(".tar"))
    }

    func testThatTheSuggestedNamePrefersContentDispositionThenTheURL() {
        let url = URL(string: "https://host/files/archive%20v2.zip?x=1")!
        XCTAssertEqual(DownloadFileName.suggested(contentDisposition: "attachment; filename=\"report.pdf\"", url: url),
                       "report.pdf")
        XCTAssertEqual(DownloadFileName.suggested(contentDisposition: "inline", url: url), "archive v2.zip")
        XCTAssertEqual(DownloadFileName.suggested(contentDisposition: "attachment; filename=\"..\"", url: url),
                       "archive v2.zip")
        XCTAssertEqual(DownloadFileName.suggested(contentDisposition: nil, url: URL(string: "https://host/")!), "download")
        XCTAssertEqual(DownloadFileName.suggested(contentDisposition: nil, url: URL(string: "https://host/..")!), "download")
    }

    func testThatSuggestedDestinationsStayInTheirDirectory() throws {
        let directory = URL(fileURLWithPath: "/tmp/curlfire-names", isDirectory: true)
        let destination = DownloadRequest.suggestedDownloadDestination(in: directory, options: .removePreviousFile)
        for header in ["attachment; filename=\"../../etc/passwd\"", "attachment; filename*=UTF-8''..%2F..%2Fetc%2Fshadow",
                       "attachment; filename=\"/etc/hosts\"", "attachment; filename=\"..\""] {
            let response = try XCTUnwrap(HTTPURLResponse(url: URL(string: "http://h/x/y")!, statusCode: 200,
                                                         httpVersion: nil, headerFields: ["Content-Disposition": header]))
            let (url, options) = destination(URL(fileURLWithPath: "/tmp/t"), response)
            XCTAssertEqual(url.deletingLastPathComponent().standardizedFileURL.path, directory.path, header)
            XCTAssertFalse(url.lastPathComponent.contains(".."), header)
            XCTAssertEqual(options, .removePreviousFile)
        }
    }
}

final class DownloadContentDispositionTests: XCTestCase {
    func testThatQuotedTokenAndExtendedFileNamesParse() {
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; filename=\"a b.txt\""), "a b.txt")
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; filename=plain.txt"), "plain.txt")
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; FILENAME=\"Upper.txt\""), "Upper.txt")
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; filename=\"say \\\"hi\\\".txt\""), "say \"hi\".txt")
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; filename=\"semi;colon.txt\"; size=3"), "semi;colon.txt")
        XCTAssertNil(ContentDisposition.filename(in: "inline"))
        XCTAssertNil(ContentDisposition.filename(in: "attachment; size=3"))
    }

    func testThatTheExtendedFormWinsAndDecodes() {
        let header = "attachment; filename=\"fallback.txt\"; filename*=UTF-8''na%C3%AFve%20file.txt"
        XCTAssertEqual(ContentDisposition.filename(in: header), "naïve file.txt")
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; filename*=iso-8859-1'en'%E9t%E9.txt"), "été.txt")
        XCTAssertEqual(ContentDisposition.filename(in: "attachment; filename*=UTF-8''bad%ZZ; filename=ok.txt"), "ok.txt")
        XCTAssertNil(ContentDisposition.decodeExtended("no-quotes"))
        XCTAssertNil(ContentDisposition.decodeExtended("utf-8''%FF%FE"), "invalid UTF-8 is refused")
    }
}
