@testable import Curlfire
import Foundation
import XCTest

/// `URL.lowercasedScheme` reads the scheme from `absoluteString` and must agree with Foundation's
/// `scheme?.lowercased()` for every URL.
final class URLLowercasedSchemeTests: XCTestCase {
    func testThatItAgreesWithFoundationForAbsoluteAndRelativeURLs() throws {
        let strings = ["http://127.0.0.1/a", "HTTPS://Example.test/", "hTtP://h", "http+unix://%2Ftmp%2Fs/x",
                       "https+unix://%2Ftmp%2Fs/x", "ftp://h/f", "a:b", "a1+-.:rest", "mailto:x@y.test",
                       "file:///tmp/x", "//host/path", "/path/only", "relative/path", "relative:colon/path",
                       "?query", "#fragment", "1http://h", "+x://h", "http", "", "x-y.z+w://h:1/p?q#f",
                       "ht%74p://h", "urn:isbn:0451450523", "https://h/", "http://h", "httpx://h", "htt://h",
                       "httq://h", "hxxps://h", "http2://h", "https1://h", "Https://h", "httP://h"]
        for string in strings {
            guard let url = URL(string: string) else { continue }
            XCTAssertEqual(url.lowercasedScheme, url.scheme?.lowercased(), string)
        }
        let base = try XCTUnwrap(URL(string: "HTTPS://base.test/dir/"))
        for relative in ["child", "../up", "//other.test/x", "?q", "HTTP://abs.test/", "x:y"] {
            let url = try XCTUnwrap(URL(string: relative, relativeTo: base))
            XCTAssertEqual(url.lowercasedScheme, url.scheme?.lowercased(), "\(relative) against \(base)")
        }
        XCTAssertEqual(URL(fileURLWithPath: "/tmp/x").lowercasedScheme, "file")
        XCTAssertEqual(try XCTUnwrap(URL(string: "HTTP://h/")).lowercasedScheme, "http")
    }
}
