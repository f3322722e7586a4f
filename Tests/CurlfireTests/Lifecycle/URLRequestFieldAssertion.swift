import Foundation
import FoundationNetworking
import XCTest

/// Asserts that two requests agree field by field: `URLRequest`'s own `==` on Linux compares only the
/// URL, the method and the cache policy (a different timeout, header or body still compares equal).
/// Shared by the tests that pin what a request value carries (`FakeEngineRequestBuildingTests`,
/// `FakeEngineRequestReadingTests`).
func assertSameRequestFields(_ actual: URLRequest?, _ expected: URLRequest, _ message: String,
                             file: StaticString = #filePath, line: UInt = #line) {
    guard let actual else { return XCTFail("no request: \(message)", file: file, line: line) }
    XCTAssertEqual(actual.url?.absoluteString, expected.url?.absoluteString, message, file: file, line: line)
    XCTAssertEqual(actual.httpMethod, expected.httpMethod, message, file: file, line: line)
    XCTAssertEqual(actual.allHTTPHeaderFields ?? [:], expected.allHTTPHeaderFields ?? [:], message, file: file, line: line)
    XCTAssertEqual(actual.timeoutInterval, expected.timeoutInterval, message, file: file, line: line)
    XCTAssertEqual(actual.cachePolicy, expected.cachePolicy, message, file: file, line: line)
    XCTAssertEqual(actual.httpBody, expected.httpBody, message, file: file, line: line)
    XCTAssertEqual(actual.httpBodyStream == nil, expected.httpBodyStream == nil, message, file: file, line: line)
    XCTAssertEqual(actual.httpShouldHandleCookies, expected.httpShouldHandleCookies, message, file: file, line: line)
    XCTAssertEqual(actual.mainDocumentURL, expected.mainDocumentURL, message, file: file, line: line)
}
