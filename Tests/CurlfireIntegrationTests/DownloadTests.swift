import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// Downloads against httpbin: files, destinations and options, names, validation and serializers.
final class DownloadTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func to(_ url: URL, _ options: DownloadRequest.DownloadOptions = []) -> DownloadRequest.DownloadFileDestination {
        { _, _ in (url, options) }
    }

    func testThatBytesLandInARecognisableTemporaryFileWithoutADestination() async throws {
        let url1 = try Live.httpbin("/bytes/50000")
        let response = await awaitResponse {
            Curlfire.download(url1).validate().response(completionHandler: $0)
        }
        XCTAssertNil(response.error, response.debugDescription)
        let file = try XCTUnwrap(response.temporaryURL)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertNil(response.destinationURL)
        XCTAssertNil(response.resumeData)
        XCTAssertEqual(fileSize(file), 50000)
        XCTAssertEqual(file.deletingLastPathComponent().standardizedFileURL.path,
                       FileManager.default.temporaryDirectory.standardizedFileURL.path)
        XCTAssertTrue(file.lastPathComponent.hasPrefix("curlfire-download-"), file.lastPathComponent)
        XCTAssertEqual(response.request?.value(forHTTPHeaderField: "Accept-Encoding"), "identity")
        XCTAssertTrue(response.debugDescription.contains("[TemporaryURL]: \(file.path)"))
    }

    func testThatAPNGIsMovedValidatedAndReadBack() async throws {
        let destination = directory.appendingPathComponent("picture.png")
        let url2 = try Live.httpbin("/image/png")
        let response = await awaitResponse {
            Curlfire.download(url2, to: self.to(destination))
                .validate(contentType: ["image/png"]).responseData(completionHandler: $0)
        }
        let data = try XCTUnwrap(response.value, response.debugDescription)
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(response.destinationURL, destination)
        XCTAssertEqual(fileSize(destination), data.count)
        XCTAssertFalse(FileManager.default.fileExists(atPath: response.temporaryURL?.path ?? "/"), "moved, not copied")
        let wrongType = await Curlfire.download(try Live.httpbin("/image/png"), to: to(directory.appendingPathComponent("b.png")))
            .validate(contentType: ["text/*"]).serializingDownloadedFileURL().response
        guard case .responseValidationFailed(.unacceptableContentType)? = wrongType.error else {
            return XCTFail(wrongType.debugDescription)
        }
    }

    func testThatAPathTraversalFileNameStaysInTheChosenDirectory() async throws {
        let header = "attachment; filename=\"../../etc/passwd\""
        let url = try Live.httpbin("/response-headers?Content-Disposition="
                                   + header.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let response = await Curlfire.download(url, to: DownloadRequest.suggestedDownloadDestination(in: directory))
            .validate().serializingJSON().response
        XCTAssertEqual(response.response?.value(forHTTPHeaderField: "Content-Disposition"), header)
        XCTAssertEqual(response.destinationURL, directory.appendingPathComponent("passwd"))
        XCTAssertEqual((response.value as? [String: Any])?["Content-Disposition"] as? String, header)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["passwd"])
    }

    func testThatTheURLsLastComponentNamesTheFileWithoutContentDisposition() async throws {
        let response = await Curlfire.download(try Live.httpbin("/bytes/64"),
                                               to: DownloadRequest.suggestedDownloadDestination(in: directory))
            .serializingData().response
        XCTAssertEqual(response.destinationURL?.lastPathComponent, "64")
        XCTAssertEqual(response.value?.count, 64)
    }

    func testThatAMissingDirectoryFailsBeforeTheTransferUnlessCreated() async throws {
        // Checked before anything is requested (issue 30): no bytes are downloaded for nothing.
        let deep = directory.appendingPathComponent("x/y/file.bin")
        let url3 = try Live.httpbin("/bytes/2048")
        let failed = await awaitResponse {
            Curlfire.download(url3, to: self.to(deep)).response(completionHandler: $0)
        }
        guard case let .downloadDestinationUnusable(underlying, destination)? = failed.error else {
            return XCTFail(failed.debugDescription)
        }
        XCTAssertEqual((underlying as? POSIXError)?.code, .ENOENT, "\(underlying)")
        XCTAssertEqual(destination, deep)
        XCTAssertNil(failed.response, "nothing was requested")
        XCTAssertNil(failed.temporaryURL)
        XCTAssertNil(failed.destinationURL)

        let url4 = try Live.httpbin("/bytes/2048")
        let created = await awaitResponse {
            Curlfire.download(url4, to: self.to(deep, .createIntermediateDirectories))
                .response(completionHandler: $0)
        }
        XCTAssertNil(created.error, created.debugDescription)
        XCTAssertEqual(fileSize(deep), 2048)
    }

    func testThatAnOccupiedDestinationIsReplacedOnlyWithRemovePreviousFile() async throws {
        let target = directory.appendingPathComponent("occupied.bin")
        try Data("keep me".utf8).write(to: target)
        let refused = await Curlfire.download(try Live.httpbin("/bytes/100"), to: to(target))
            .serializingDownloadedFileURL().response
        guard case let .downloadDestinationUnusable(underlying, _)? = refused.error else {
            return XCTFail(refused.debugDescription)
        }
        XCTAssertEqual((underlying as? POSIXError)?.code, .EEXIST, "\(underlying)")
        XCTAssertTrue(refused.error?.description.contains("removePreviousFile") ?? false, "\(String(describing: refused.error))")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "keep me")
        XCTAssertNil(refused.response, "nothing was requested")

        let replaced = await Curlfire.download(try Live.httpbin("/bytes/100"), to: to(target, .removePreviousFile))
            .serializingDownloadedFileURL().response
        XCTAssertEqual(replaced.value, target)
        XCTAssertEqual(fileSize(target), 100)
    }

    func testThatValidatorsSeeTheFilesAndRejectErrorStatuses() async throws {
        let target = directory.appendingPathComponent("teapot.txt")
        let seen = Recorder<String>()
        let url5 = try Live.httpbin("/status/418")
        let response = await awaitResponse {
            Curlfire.download(url5, to: self.to(target))
                .validate { _, response, temporaryURL, destinationURL in
                    seen.append("\(response.statusCode) \(destinationURL?.lastPathComponent ?? "nil") \(temporaryURL != nil)")
                    return .success
                }
                .validate().response(completionHandler: $0)
        }
        XCTAssertEqual(response.error?.responseCode, 418)
        XCTAssertEqual(seen.all, ["418 teapot.txt true"])
        XCTAssertGreaterThan(fileSize(target), 0, "as in Alamofire, the error body is moved too")
    }

    func testThatAsyncSerializersReadTheDownloadedFile() async throws {
        struct Slideshow: Decodable, Sendable { struct Show: Decodable, Sendable { let title: String }; let slideshow: Show }
        let decoded = try await Curlfire.download(try Live.httpbin("/json"), to: to(directory.appendingPathComponent("a")))
            .validate()
            .serializingDecodable(Slideshow.self).value
        XCTAssertEqual(decoded.slideshow.title, "Sample Slide Show")
        let text = try await Curlfire.download(try Live.httpbin("/robots.txt"), to: to(directory.appendingPathComponent("b")))
            .serializingString().value
        XCTAssertTrue(text.contains("Disallow: /deny"), text)
        let json = try await Curlfire.download(try Live.httpbin("/get?a=1"), to: to(directory.appendingPathComponent("c")))
            .serializingJSON().value
        XCTAssertEqual(((json as? [String: Any])?["args"] as? [String: Any])?["a"] as? String, "1")
        let fileURL = try await Curlfire.download(URLRequest(url: URL(string: try Live.httpbin("/bytes/10"))!))
            .serializingDownloadedFileURL().value
        XCTAssertEqual(fileSize(fileURL), 10)
        try? FileManager.default.removeItem(at: fileURL)
    }

    func testThatHandlersOnCopiesShareOneTransferAndOneMove() async throws {
        let target = directory.appendingPathComponent("shared.bin")
        let request = Curlfire.download(try Live.httpbin("/bytes/300"), to: to(target))
        let first = await request.serializingDownloadedFileURL().response
        let second = await request.validate().serializingData().response
        XCTAssertEqual(first.value, target)
        XCTAssertEqual(second.value?.count, 300)
        XCTAssertEqual(first.metrics?.bytesReceived, second.metrics?.bytesReceived)
    }

    func testThatCorruptResumeDataFailsClearly() async throws {
        for bad in [Data("garbage".utf8), Data("{\"format\":\"org.curlfire.resume-data\",\"version\":1}".utf8)] {
            let response = await Curlfire.download(resumingWith: bad).serializingDownloadedFileURL().response
            guard case let .invalidResumeData(reason)? = response.error else { return XCTFail(response.debugDescription) }
            XCTAssertFalse(reason.isEmpty)
            XCTAssertNil(response.resumeData)
        }
    }
}
