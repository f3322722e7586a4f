@testable import Curlfire
import XCTest

/// `SessionConfiguration.baseURL` resolution, as `AFHTTPSessionManager(baseURL:)`.
final class BaseURLResolutionTests: XCTestCase {
    func testThatRelativeStringsResolveAgainstTheBaseAsADirectory() {
        let table: [(String, String, String?)] = [
            ("https://api.example.com/v1", "users/7", "https://api.example.com/v1/users/7"),
            ("https://api.example.com/v1/", "users/7", "https://api.example.com/v1/users/7"),
            ("https://api.example.com", "users/7", "https://api.example.com/users/7"),
            ("https://api.example.com/v1", "users?q=1", "https://api.example.com/v1/users?q=1"),
            ("https://api.example.com/v1", "/users", "https://api.example.com/users"),
            ("https://api.example.com/v1/x", "../y", "https://api.example.com/v1/y"),
            ("https://api.example.com/v1", "http://other.example/z", "http://other.example/z"),
            ("https://api.example.com/v1", "https://", nil),
        ]
        for (base, reference, expected) in table {
            let resolved = BaseURLResolution.resolve(reference, against: URL(string: base)!)
            XCTAssertEqual(resolved?.absoluteString, expected, "\(reference) against \(base)")
        }
    }

    func testThatTheCompoundSerializerChoosesByContentType() {
        let json = DataResponseSerializer<String> { _, _, _, _ in .success("json") }
        let xml = DataResponseSerializer<String> { _, _, _, _ in .success("xml") }
        let entries: [CompoundResponseSerializer<String>.Entry] = [
            (contentTypes: ["application/json"], serializer: json),
            (contentTypes: ["application/xml", "text/*"], serializer: xml),
        ]
        func pick(_ type: String?) -> String? {
            CompoundResponseSerializer.choose(entries, contentType: type).flatMap { try? $0.serializeResponse(nil, nil, nil, nil).get() }
        }
        XCTAssertEqual(pick("application/json; charset=utf-8"), "json")
        XCTAssertEqual(pick("APPLICATION/XML"), "xml")
        XCTAssertEqual(pick("text/html"), "xml")
        XCTAssertNil(pick("image/png"))
        XCTAssertNil(pick(nil))
    }
}
