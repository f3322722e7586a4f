@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

final class DownloadResumeDataTests: XCTestCase {
    private func sample(bytes: Int64 = 1024, total: Int64? = 4096) -> DownloadResumeData {
        DownloadResumeData(request: .init(url: "https://example.com/f.bin", method: "GET", headers: ["Accept": "*/*"]),
                           temporaryFile: DownloadLocations.newTemporaryFile(), bytesReceived: bytes, totalBytes: total,
                           validators: ResumeValidators(entityTag: "\"abc\"", lastModified: "Tue, 01 Apr 2025 10:00:00 GMT"))
    }

    func testThatResumeDataRoundTripsAsVersionedJSON() throws {
        let original = sample()
        let data = try XCTUnwrap(original.encoded())
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "org.curlfire.resume-data")
        XCTAssertEqual(object["version"] as? Int, 1)
        XCTAssertEqual(object["bytesReceived"] as? Int, 1024)
        XCTAssertEqual(object["entityTag"] as? String, "\"abc\"")
        XCTAssertEqual(try DownloadResumeData.decode(data), original)
        XCTAssertEqual(original.encoded(), data, "sorted keys: equal values encode equally")
    }

    func testThatCorruptResumeDataIsRefusedWithAReason() throws {
        func reason(_ data: Data) -> String? {
            do {
                _ = try DownloadResumeData.decode(data)
                return nil
            } catch {
                guard case let .invalidResumeData(reason) = error else { return "wrong error \(error)" }
                return reason
            }
        }
        XCTAssertNotNil(reason(Data([0xFF, 0x00, 0x13])))
        XCTAssertNotNil(reason(Data("[]".utf8)))
        XCTAssertNotNil(reason(Data("{\"format\":\"other\",\"version\":1}".utf8)))
        XCTAssertEqual(reason(Data("{\"format\":\"org.curlfire.resume-data\",\"version\":9}".utf8)),
                       "version 9 is newer than this Curlfire reads (1)")
        XCTAssertNotNil(reason(Data("{\"format\":\"org.curlfire.resume-data\",\"version\":1}".utf8)))
        var negative = sample()
        negative.bytesReceived = -5
        XCTAssertNotNil(reason(try XCTUnwrap(negative.encoded())))
        var ftp = sample()
        ftp.request.url = "ftp://example.com/f"
        XCTAssertNotNil(reason(try XCTUnwrap(ftp.encoded())))
        var noValidators = sample()
        noValidators.entityTag = nil
        noValidators.lastModified = nil
        XCTAssertNotNil(reason(try XCTUnwrap(noValidators.encoded())))
        var shrunk = sample()
        shrunk.totalBytes = 10
        XCTAssertNotNil(reason(try XCTUnwrap(shrunk.encoded())))
    }

    func testThatThePartialFileMustBeACurlfireFileInTheTemporaryDirectory() throws {
        var resume = sample(bytes: 3)
        XCTAssertThrowsError(try resume.checkFile(), "missing file")
        resume.temporaryFile = "/etc/passwd"
        XCTAssertThrowsError(try resume.checkFile(), "outside the temporary directory")
        let file = DownloadLocations.newTemporaryFile()
        try Data("ab".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        resume.temporaryFile = file.path
        XCTAssertThrowsError(try resume.checkFile(), "shorter than bytesReceived")
        try Data("abcd".utf8).write(to: file)
        XCTAssertNoThrow(try resume.checkFile())
    }

    func testThatTheResumeRequestAsksForTheRestWithIfRange() throws {
        let request = try sample().makeRequest()
        XCTAssertEqual(request.value(forHTTPHeaderField: "Range"), "bytes=1024-")
        XCTAssertEqual(request.value(forHTTPHeaderField: "If-Range"), "\"abc\"")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "*/*")
        XCTAssertEqual(try sample(bytes: 4096, total: 4096).makeRequest().value(forHTTPHeaderField: "Range"), "bytes=4095-",
                       "a complete partial file asks for its last byte again, not for nothing (416)")
        let weak = ResumeValidators(entityTag: "W/\"weak\"", lastModified: "Tue, 01 Apr 2025 10:00:00 GMT")
        XCTAssertEqual(weak.ifRange, "Tue, 01 Apr 2025 10:00:00 GMT", "weak tags are never sent as If-Range")
        XCTAssertFalse(ResumeValidators(entityTag: "W/\"weak\"").canValidateRange)
    }

    func testThatContentRangeParses() {
        XCTAssertEqual(ContentRange("bytes 100-199/1000")?.first, 100)
        XCTAssertEqual(ContentRange("bytes 100-199/*")?.completeLength, nil)
        XCTAssertEqual(ContentRange("bytes */1000")?.completeLength, 1000)
        XCTAssertNil(ContentRange("bytes */1000")?.first)
        XCTAssertNil(ContentRange("items 1-2/3"))
        XCTAssertNil(ContentRange("bytes 5-1/10"))
    }

    func testThatDownloadResponsesDescribeTheirFiles() {
        let response = DownloadResponse<Int>(request: nil, response: nil, temporaryURL: URL(fileURLWithPath: "/tmp/t"),
                                             destinationURL: URL(fileURLWithPath: "/tmp/d"), resumeData: Data(count: 7),
                                             result: .success(1))
        XCTAssertTrue(response.debugDescription.contains("[TemporaryURL]: /tmp/t"))
        XCTAssertTrue(response.debugDescription.contains("[DestinationURL]: /tmp/d"))
        XCTAssertTrue(response.debugDescription.contains("[ResumeData]: 7 bytes"))
        XCTAssertEqual(response.fileURL?.path, "/tmp/d")
        XCTAssertEqual(response.map { $0 + 1 }.value, 2)
        let plain = DefaultDownloadResponse(request: nil, response: nil, temporaryURL: nil, destinationURL: nil,
                                            resumeData: nil, error: .explicitlyCancelled)
        XCTAssertTrue(plain.debugDescription.contains("[ResumeData]: 0 bytes"))
        XCTAssertTrue(plain.description.hasPrefix("FAILURE"))
    }
}
