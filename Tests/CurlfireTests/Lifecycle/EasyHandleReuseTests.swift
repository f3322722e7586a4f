@testable import Curlfire
internal import CCurl
import Foundation
import FoundationNetworking
import XCTest

/// A pooled easy handle keeps its options between attempts of the same shape: the next plan sets
/// only what changed, and anything else (another shape, credentials, a body) starts from a reset.
final class EasyHandleReuseTests: XCTestCase {
    /// Records the options set, in order.
    struct Recorder: CurlOptionWriter {
        var written: [UInt32] = []
        mutating func long(_ option: CURLoption, _ value: Int) { written.append(option.rawValue) }
        mutating func string(_ option: CURLoption, _ value: String?) { written.append(option.rawValue) }
        mutating func offset(_ option: CURLoption, _ value: Int64) { written.append(option.rawValue) }
        mutating func blob(_ option: CURLoption, _ value: [UInt8]) { written.append(option.rawValue) }
        mutating func trustEvaluation(_ trust: any TLSContextConfiguring) { written.append(CURLOPT_SSL_CTX_FUNCTION.rawValue) }
    }

    private let session = SessionManager()
    private var easy: UnsafeMutableRawPointer!

    override func setUp() {
        _ = CurlGlobal.initialized
        easy = curl_easy_init()
    }

    override func tearDown() {
        curl_easy_cleanup(easy)
    }

    private func plan(_ url: String, method: String = "GET", body: UploadBody = .none,
                      credential: (user: String, password: String)? = nil) throws -> AttemptPlan {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = method
        let options = session.planOptions(for: request, credential: credential, reportsProgress: false,
                                          followsWithoutAsking: true)
        return AttemptPlan(request: request, body: body, options: options)
    }

    /// Writes `plan` as the engine does and returns what was set.
    private func write(_ plan: AttemptPlan, _ record: inout EasyHandleRecord?) -> [UInt32] {
        var recorder = Recorder()
        EasyHandleReuse.write(plan, eligible: EasyHandleReuse.isEligible(plan, replays: 0), easy: easy,
                              to: &recorder, record: &record)
        return recorder.written
    }

    func testThatTheSamePlanAgainSetsNothingAndAnotherURLOnlyTheURL() throws {
        var record: EasyHandleRecord?
        let first = try plan("http://127.0.0.1:1/small.txt")
        let all = write(first, &record)
        XCTAssertTrue(all.contains(CURLOPT_URL.rawValue))
        XCTAssertEqual(record?.entries.count, all.count, "a fresh handle records every option it was given")
        XCTAssertEqual(write(first, &record), [], "the handle already carries every option")
        XCTAssertEqual(write(try plan("http://127.0.0.1:1/other?x=1"), &record), [CURLOPT_URL.rawValue])
        XCTAssertEqual(record?.entries.count, all.count)
        // Back to the first URL: the record followed the change.
        XCTAssertEqual(write(first, &record), [CURLOPT_URL.rawValue])
    }

    func testThatAnotherShapeStartsAgainFromTheDefaults() throws {
        var record: EasyHandleRecord?
        let get = write(try plan("http://127.0.0.1:1/a"), &record)
        let head = write(try plan("http://127.0.0.1:1/a", method: "HEAD"), &record)
        XCTAssertTrue(head.contains(CURLOPT_NOBODY.rawValue))
        XCTAssertFalse(head.contains(CURLOPT_HTTPGET.rawValue))
        XCTAssertEqual(head.count, get.count, "every option again, after a reset")
        XCTAssertNotNil(record)
        let deleted = write(try plan("http://127.0.0.1:1/a", method: "DELETE"), &record)
        XCTAssertTrue(deleted.contains(CURLOPT_CUSTOMREQUEST.rawValue))
        XCTAssertFalse(deleted.contains(CURLOPT_NOBODY.rawValue))
    }

    func testThatCredentialsAndBodiesNeverKeepAHandleConfigured() throws {
        var record: EasyHandleRecord?
        _ = write(try plan("http://127.0.0.1:1/a"), &record)
        XCTAssertNotNil(record)
        let authenticated = try plan("http://127.0.0.1:1/a", credential: ("user", "secret"))
        XCTAssertFalse(EasyHandleReuse.isEligible(authenticated, replays: 0))
        let written = write(authenticated, &record)
        XCTAssertTrue(written.contains(CURLOPT_USERNAME.rawValue))
        XCTAssertNil(record, "libcurl keeps authentication state on a handle: reset before the next attempt")
        let posted = try plan("http://127.0.0.1:1/a", method: "POST", body: .data(Data("x".utf8)))
        XCTAssertFalse(EasyHandleReuse.isEligible(posted, replays: 0))
        XCTAssertFalse(EasyHandleReuse.isEligible(try plan("http://127.0.0.1:1/a"), replays: 1), "a replay uses a fresh connection")
        XCTAssertTrue(EasyHandleReuse.isEligible(try plan("http://127.0.0.1:1/a"), replays: 0))
    }

    /// Whether `write` started from libcurl's defaults decides whether the engine sets the options
    /// that are the same on every attempt (callbacks, error buffer, share handle) again.
    func testThatOnlyAHandleThatKeptItsOptionsSkipsTheHandlesOwnOptions() throws {
        var record: EasyHandleRecord?
        func fromDefaults(_ plan: AttemptPlan) -> Bool {
            var recorder = Recorder()
            return EasyHandleReuse.write(plan, eligible: EasyHandleReuse.isEligible(plan, replays: 0), easy: easy,
                                         to: &recorder, record: &record)
        }
        XCTAssertTrue(fromDefaults(try plan("http://127.0.0.1:1/a")), "a new handle")
        XCTAssertFalse(fromDefaults(try plan("http://127.0.0.1:1/b")), "same shape: the handle kept everything")
        XCTAssertTrue(fromDefaults(try plan("http://127.0.0.1:1/a", method: "HEAD")), "another shape: reset")
        XCTAssertFalse(fromDefaults(try plan("http://127.0.0.1:1/c", method: "HEAD")))
        XCTAssertTrue(fromDefaults(try plan("http://127.0.0.1:1/a", credential: ("user", "secret"))), "not eligible: reset")
        XCTAssertNil(record)
        XCTAssertTrue(fromDefaults(try plan("http://127.0.0.1:1/a")), "after an attempt that left no record")
    }
}
