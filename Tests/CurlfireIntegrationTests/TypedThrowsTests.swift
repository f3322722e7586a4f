import Curlfire
import Foundation
import XCTest

/// The async `value` of `DataTask` and `DownloadTask` throws `CurlfireError` (typed throws): a `catch`
/// around it binds `error` as a `CurlfireError`, so these tests only compile while that holds. Against httpbin.
final class TypedThrowsTests: XCTestCase {
    func testThatADataTasksValueThrowsACurlfireError() async throws {
        let url = try Live.httpbin("/status/404")
        do {
            _ = try await SessionManager().request(url).validate().serializingData().value
            XCTFail("a 404 must fail validation")
        } catch {
            // `error` is statically a CurlfireError: no `as?` cast.
            XCTAssertEqual(error.responseCode, 404)
            XCTAssertEqual(error.localizedDescription, "The response's status code 404 (Not Found) is not acceptable.")
        }
    }

    func testThatADownloadTasksValueThrowsACurlfireError() async throws {
        let url = try Live.httpbin("/status/503")
        do {
            _ = try await SessionManager().download(url).validate().serializingData().value
            XCTFail("a 503 must fail validation")
        } catch {
            XCTAssertEqual(error.responseCode, 503)
        }
    }

    func testThatUntypedCallersStillCompileAndCatch() async throws {
        let url = try Live.httpbin("/status/418")
        func fetch() async throws -> Data {  // an untyped `throws` context, as existing code has
            try await SessionManager().request(url).validate().serializingData().value
        }
        do {
            _ = try await fetch()
            XCTFail("a 418 must fail validation")
        } catch let error as CurlfireError {
            XCTAssertEqual(error.responseCode, 418)
        }
    }
}
