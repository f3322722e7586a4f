import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// Issue 30 point 3: a `URLRequest`'s `httpBodyStream` is sent, and a download whose destination
/// cannot take the file fails before anything is requested. Against MockServer, which records bodies
/// and counts requests.
final class SilentLossTests: XCTestCase {
    private var server: MockServer!
    private var directory: URL!

    override func setUpWithError() throws {
        server = try MockServer()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-loss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// XCTest never frees its test-case instances: the server (its queued responses and recorded
    /// requests) is released here so that LeakSanitizer does not report them (`make sanitize-leaks`).
    override func tearDown() {
        server.shutdown()
        server = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private func bytes(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    // MARK: - httpBodyStream

    func testThatAURLRequestBodyStreamIsSentWhole() async throws {
        // Given: 300 KB behind an InputStream, no Content-Length (sent chunked)
        let body = bytes(300_000)
        var request = URLRequest(url: server.url("/stream-body"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: body)
        server.enqueue(MockResponse(statusCode: 201))
        // When
        let response = await awaitResponse { SessionManager().request(request).response(completionHandler: $0) }
        // Then
        XCTAssertNil(response.error)
        XCTAssertEqual(response.response?.statusCode, 201)
        let recorded = try XCTUnwrap(server.takeRequest(timeout: 5))
        XCTAssertEqual(recorded.body.count, body.count)
        XCTAssertEqual(recorded.body, body, "every byte of the stream arrived")
    }

    func testThatABodyStreamWithContentLengthIsSentWithThatLength() async throws {
        let body = bytes(70_001)
        var request = URLRequest(url: server.url("/stream-length"))
        request.httpMethod = "PUT"
        request.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
        request.httpBodyStream = InputStream(data: body)
        server.enqueue(MockResponse(statusCode: 204))
        let response = await awaitResponse { SessionManager().request(request).response(completionHandler: $0) }
        XCTAssertNil(response.error)
        let recorded = try XCTUnwrap(server.takeRequest(timeout: 5))
        XCTAssertEqual(recorded.headers["Content-Length"], "70001")
        XCTAssertNil(recorded.headers["Transfer-Encoding"])
        XCTAssertEqual(recorded.body, body)
    }

    func testThatAShortBodyStreamFailsTypedRatherThanSendingLess() async throws {
        var request = URLRequest(url: server.url("/stream-short"))
        request.httpMethod = "POST"
        request.setValue("1000", forHTTPHeaderField: "Content-Length")
        request.httpBodyStream = InputStream(data: bytes(10))
        server.enqueue(MockResponse(statusCode: 204))
        let response = await awaitResponse { SessionManager().request(request).response(completionHandler: $0) }
        guard case .bodyStreamFailed(.lengthMismatch(expected: 1000, produced: 10))? = response.error else {
            return XCTFail("expected lengthMismatch, got \(String(describing: response.error))")
        }
    }

    // MARK: - Download destinations checked before the transfer

    func testThatAnOccupiedDestinationWithoutRemovePreviousFileFailsBeforeAnythingIsRequested() async throws {
        // Given
        let occupied = directory.appendingPathComponent("taken.bin")
        try Data("old".utf8).write(to: occupied)
        server.enqueue(MockResponse(body: bytes(1_000)))
        // When
        let response = await awaitResponse {
            SessionManager().download(server.url("/file")) { _, _ in (occupied, []) }.response(completionHandler: $0)
        }
        // Then
        guard case let .downloadDestinationUnusable(error, destination)? = response.error else {
            return XCTFail("expected downloadDestinationUnusable, got \(String(describing: response.error))")
        }
        XCTAssertEqual((error as? POSIXError)?.code, .EEXIST)
        XCTAssertEqual(destination.path, occupied.path)
        XCTAssertEqual(server.requestCount, 0, "nothing was requested from the server")
        XCTAssertEqual(try String(contentsOf: occupied, encoding: .utf8), "old", "the file there is untouched")
        XCTAssertNil(response.response)
    }

    func testThatTheSameDestinationWithRemovePreviousFileIsDownloaded() async throws {
        let occupied = directory.appendingPathComponent("taken.bin")
        try Data("old".utf8).write(to: occupied)
        server.enqueue(MockResponse(body: bytes(1_000)))
        let response = await awaitResponse {
            SessionManager().download(server.url("/file")) { _, _ in (occupied, [.removePreviousFile]) }
                .response(completionHandler: $0)
        }
        XCTAssertNil(response.error)
        XCTAssertEqual(try Data(contentsOf: occupied), bytes(1_000))
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatADirectoryThatCannotBeWrittenFailsBeforeAnythingIsRequested() async throws {
        // Given: the "directory" is a regular file (ENOTDIR, whoever runs the test, root included)
        let blocker = directory.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let target = blocker.appendingPathComponent("sub/file.bin")
        server.enqueue(MockResponse(body: bytes(1_000)))
        // When: even with .createIntermediateDirectories
        let response = await awaitResponse {
            SessionManager().download(server.url("/file")) { _, _ in (target, [.createIntermediateDirectories]) }
                .response(completionHandler: $0)
        }
        // Then
        guard case let .downloadDestinationUnusable(error, _)? = response.error else {
            return XCTFail("expected downloadDestinationUnusable, got \(String(describing: response.error))")
        }
        XCTAssertEqual((error as? POSIXError)?.code, .ENOTDIR)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testThatAMissingDirectoryWithoutCreateIntermediateDirectoriesFailsBeforeAnythingIsRequested() async throws {
        let target = directory.appendingPathComponent("missing/file.bin")
        server.enqueue(MockResponse(body: bytes(1_000)))
        let response = await awaitResponse {
            SessionManager().download(server.url("/file")) { _, _ in (target, []) }.response(completionHandler: $0)
        }
        guard case let .downloadDestinationUnusable(error, _)? = response.error else {
            return XCTFail("expected downloadDestinationUnusable, got \(String(describing: response.error))")
        }
        XCTAssertEqual((error as? POSIXError)?.code, .ENOENT)
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertTrue(response.error?.localizedDescription.contains(target.path) ?? false)
    }

    func testThatANonWritableDirectoryFailsBeforeAnythingIsRequested() async throws {
        try XCTSkipIf(geteuid() == 0, "root writes anywhere; the ENOTDIR test covers the check for root")
        let locked = directory.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        chmod(locked.path, 0o500)
        defer { chmod(locked.path, 0o700) }
        server.enqueue(MockResponse(body: bytes(1_000)))
        let response = await awaitResponse {
            SessionManager().download(server.url("/file")) { _, _ in (locked.appendingPathComponent("f"), []) }
                .response(completionHandler: $0)
        }
        guard case let .downloadDestinationUnusable(error, _)? = response.error else {
            return XCTFail("expected downloadDestinationUnusable, got \(String(describing: response.error))")
        }
        XCTAssertEqual((error as? POSIXError)?.code, .EACCES)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testThatASuggestedDestinationIsCheckedForItsDirectoryOnly() async throws {
        // The name comes from the response, so an occupied "file" is not known beforehand: the
        // download happens; a missing directory is known and fails first.
        server.enqueue(MockResponse(headers: ["Content-Disposition": "attachment; filename=\"r.bin\""], body: bytes(10)))
        let fine = await awaitResponse {
            SessionManager().download(server.url("/named"),
                                      to: DownloadRequest.suggestedDownloadDestination(in: directory))
                .response(completionHandler: $0)
        }
        XCTAssertNil(fine.error)
        XCTAssertEqual(fine.destinationURL?.lastPathComponent, "r.bin")
        let missing = await awaitResponse {
            SessionManager().download(server.url("/named"),
                                      to: DownloadRequest.suggestedDownloadDestination(in: directory.appendingPathComponent("nope")))
                .response(completionHandler: $0)
        }
        guard case .downloadDestinationUnusable? = missing.error else {
            return XCTFail("expected downloadDestinationUnusable, got \(String(describing: missing.error))")
        }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testThatADestinationOccupiedDuringTheTransferStillFailsTheMoveAndKeepsTheBytes() async throws {
        // What cannot be known beforehand is still reported, with the downloaded bytes kept.
        let target = directory.appendingPathComponent("raced.bin")
        server.enqueue(MockResponse(body: bytes(2_048)).delayed(by: 0.5))
        let waiter = ResponseWaiter<DefaultDownloadResponse>()
        SessionManager().download(server.url("/raced")) { _, _ in (target, []) }.response { waiter.fulfil($0) }
        _ = server.takeRequest(timeout: 5)
        try Data("first".utf8).write(to: target)
        let response = await waiter.value
        guard case let .downloadedFileMoveFailed(error, source, _)? = response.error else {
            return XCTFail("expected downloadedFileMoveFailed, got \(String(describing: response.error))")
        }
        XCTAssertEqual((error as? POSIXError)?.code, .EEXIST)
        XCTAssertEqual(try Data(contentsOf: source), bytes(2_048))
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "first")
        try? FileManager.default.removeItem(at: source)
    }
}
