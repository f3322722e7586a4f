import Curlfire
import CurlfireTesting
import Foundation
import XCTest

/// A session recorded against real httpbin with `HARRecorder`, written to a file, and replayed by
/// `MockServer(replayingHARAt:)`: the same requests get the same responses.
final class HARReplayTests: XCTestCase {
    private var server: MockServer?

    override func tearDown() {
        server?.shutdown()
        server = nil
        super.tearDown()
    }

    private struct Echo: Decodable, Equatable {
        let args: [String: String]
        let url: String
    }

    private struct Posted: Decodable, Equatable {
        let json: [String: String]?
    }

    /// The same requests against `base`: decoded GET, POST, redirect chain, repeated request, binary body.
    private func exchange(_ base: String, session: SessionManager) async
        -> (get: Echo?, post: Posted?, redirected: (Int?, Echo?), first: Data?, second: Data?, bytes: Data?, missing: Int?) {
        let get = await session.request(base + "/get?city=Oslo&n=2").serializingDecodable(Echo.self).response
        let post = await session.request(base + "/post", method: .post, parameters: ["name": "Ada"],
                                         encoding: JSONEncoding.default).serializingDecodable(Posted.self).response
        let redirected = await session.request(base + "/redirect/2").serializingDecodable(Echo.self).response
        let first = await session.request(base + "/uuid").serializingData().response
        let second = await session.request(base + "/uuid").serializingData().response
        let bytes = await session.request(base + "/bytes/512").serializingData().response
        let missing = await session.request(base + "/status/418").serializingData().response
        return (get.value, post.value, (redirected.response?.statusCode, redirected.value), first.value, second.value, bytes.value,
                missing.response?.statusCode)
    }

    func testThatARecordedSessionReplaysTheSameResponses() async throws {
        let recorder = HARRecorder()
        let httpbin = try Live.servers().httpbin.absoluteString
        let recorded = await exchange(httpbin, session: SessionManager(eventMonitors: [recorder]))
        XCTAssertEqual(recorded.get?.args, ["city": "Oslo", "n": "2"])
        XCTAssertEqual(recorded.post?.json, ["name": "Ada"])
        XCTAssertEqual(recorded.redirected.0, 200)
        XCTAssertNotEqual(recorded.first, recorded.second, "httpbin's /uuid differs each time")
        XCTAssertEqual(recorded.bytes?.count, 512)
        XCTAssertEqual(recorded.missing, 418)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)
        let server = try MockServer(replayingHARAt: file)
        self.server = server

        let replayed = await exchange(server.baseURL.absoluteString, session: SessionManager())
        XCTAssertEqual(replayed.get, recorded.get, "decoded the same, httpbin's own URL included")
        XCTAssertEqual(replayed.post, recorded.post)
        XCTAssertEqual(replayed.redirected.0, 200)
        XCTAssertEqual(replayed.redirected.1, recorded.redirected.1)
        XCTAssertEqual(replayed.first, recorded.first, "repeats are answered in recorded order")
        XCTAssertEqual(replayed.second, recorded.second)
        XCTAssertEqual(replayed.bytes, recorded.bytes, "a binary body survives base64")
        XCTAssertEqual(replayed.missing, 418)

        var paths: [String] = []
        while let request = server.takeRequest(timeout: 1) { paths.append(request.path) }
        XCTAssertEqual(paths, ["/get?city=Oslo&n=2", "/post", "/redirect/2", "/relative-redirect/1", "/get", "/uuid", "/uuid",
                               "/bytes/512", "/status/418"], "the redirects came back to the replaying server")

        let unknown = await SessionManager().request(server.url("/not-recorded")).serializingString().response
        XCTAssertEqual(unknown.response?.statusCode, 404)
        XCTAssertTrue(unknown.value?.contains("no response recorded in the HAR file for GET /not-recorded") ?? false,
                      unknown.value ?? "")
    }

    func testThatAFileThatIsNotAnArchiveIsATypedError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"log":{"version":"1.2","entries":[]}}"#.utf8).write(to: file)
        XCTAssertThrowsError(try MockServer(replayingHARAt: file)) { error in
            guard case let MockServerError.invalidHAR(path, reason)? = error as? MockServerError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(path, file.path)
            XCTAssertTrue(reason.contains("log.creator"), reason)
        }
        try Data("not json".utf8).write(to: file)
        XCTAssertThrowsError(try MockServer(replayingHARAt: file)) { XCTAssertTrue($0 is MockServerError) }
        let missing = file.deletingLastPathComponent().appendingPathComponent("missing-\(UUID().uuidString).har")
        XCTAssertThrowsError(try MockServer(replayingHARAt: missing)) { XCTAssertTrue("\($0)".contains("cannot be read")) }
    }
}
