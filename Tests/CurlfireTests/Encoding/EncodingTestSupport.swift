import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

/// Helpers shared by the encoding tests.
enum EncodingTestSupport {
    static let url = URL(string: "https://example.com/")!

    /// A request to `url` (or `https://example.com/`) with the given method.
    static func request(_ method: HTTPMethod = .get, url: URL = url) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        return request
    }

    /// The body as UTF-8 text, or `nil`.
    static func bodyText(_ request: URLRequest) -> String? {
        request.httpBody.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Asserts that `expression` throws a ``CurlfireError`` and hands it to `check`.
func XCTAssertThrowsCurlfireError<T>(
    _ expression: @autoclosure () throws -> T,
    file: StaticString = #filePath, line: UInt = #line,
    _ check: (CurlfireError) -> Void
) {
    do {
        _ = try expression()
        XCTFail("Expected a CurlfireError, nothing was thrown", file: file, line: line)
    } catch let error as CurlfireError {
        check(error)
    } catch {
        XCTFail("Expected a CurlfireError, got \(error)", file: file, line: line)
    }
}
