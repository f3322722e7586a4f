import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

/// Booleans, numbers and escaping in ``URLEncoding``.
final class URLEncodingValueTests: XCTestCase {
    private func query(_ parameters: Parameters, boolEncoding: URLEncoding.BoolEncoding = .numeric) throws -> String? {
        try URLEncoding(destination: .queryString, boolEncoding: boolEncoding)
            .encode(EncodingTestSupport.request(), with: parameters).url?.query
    }

    // MARK: - Booleans versus numbers

    func testThatNumericBoolEncodingWritesOneAndZeroForRealBooleans() throws {
        let parameters: Parameters = ["t": true, "f": false, "nt": NSNumber(value: true), "nf": NSNumber(value: false)]
        XCTAssertEqual(try query(parameters), "f=0&nf=0&nt=1&t=1")
    }

    func testThatLiteralBoolEncodingWritesTrueAndFalseOnlyForRealBooleans() throws {
        // Given
        let parameters: Parameters = [
            "bool": true, "boxedBool": NSNumber(value: true), "boxedFalse": NSNumber(value: false),
            "int": 1, "zero": 0, "double": 1.0, "boxedInt": NSNumber(value: 1), "boxedZero": NSNumber(value: 0),
            "boxedDouble": NSNumber(value: 1.0), "int8": Int8(1), "uint": UInt(0),
        ]
        // When
        let result = try query(parameters, boolEncoding: .literal)
        // Then
        XCTAssertEqual(result, "bool=true&boxedBool=true&boxedDouble=1&boxedFalse=false&boxedInt=1&boxedZero=0"
                       + "&double=1&int=1&int8=1&uint=0&zero=0")
    }

    func testThatBooleansFromJSONSerializationAreBooleansAndNumbersAreNumbers() throws {
        // Given
        let object = try JSONSerialization.jsonObject(with: Data(#"{"t":true,"one":1,"half":0.5}"#.utf8))
        let parameters = try XCTUnwrap(object as? [String: Any])
        // When / Then
        XCTAssertEqual(try query(parameters, boolEncoding: .literal), "half=0.5&one=1&t=true")
    }

    // MARK: - Doubles

    func testThatDoublesAreWrittenWithoutTrailingZeroWhenIntegral() throws {
        // Given
        let parameters: Parameters = [
            "a": 1.0, "b": 1.5, "c": -2.0, "d": 0.1, "e": 1e15, "f": 1e20, "g": 123456789.25,
            "h": -0.0, "i": 1e21, "j": 1e-7, "k": Float(0.1), "l": Float(3),
            "m": Decimal(string: "12.50")!, "n": Int64.max, "o": UInt64.max,
        ]
        // When
        let result = try query(parameters)
        // Then
        XCTAssertEqual(result, "a=1&b=1.5&c=-2&d=0.1&e=1000000000000000&f=100000000000000000000&g=123456789.25"
                       + "&h=0&i=1e%2B21&j=1e-07&k=0.1&l=3&m=12.5&n=9223372036854775807&o=18446744073709551615")
    }

    func testThatNonFiniteDoublesThrowUnencodableValue() {
        for value in [Double.nan, .infinity, -.infinity] {
            XCTAssertThrowsCurlfireError(try query(["outer": ["x": value]])) { error in
                guard case let .parameterEncodingFailed(.unencodableValue(key, _)) = error else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(key, "outer[x]")
            }
        }
        XCTAssertThrowsCurlfireError(try query(["f": Float.nan])) { error in
            XCTAssertTrue(error.isParameterEncodingError)
        }
    }

    // MARK: - Escaping

    func testThatReservedCharactersAreEscaped() throws {
        // Given
        let encoding = URLEncoding.default
        // When / Then
        XCTAssertEqual(encoding.escape(":#[]@!$&'()*+,;="), "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D")
        XCTAssertEqual(encoding.escape("?/"), "?/")
        XCTAssertEqual(encoding.escape("-._~"), "-._~")
        XCTAssertEqual(encoding.escape("AZaz09"), "AZaz09")
    }

    func testThatIllegalASCIIIsEscaped() {
        XCTAssertEqual(URLEncoding.default.escape(" \"<>\\^`{|}\t\n\u{7F}\u{0}"),
                       "%20%22%3C%3E%5C%5E%60%7B%7C%7D%09%0A%7F%00")
    }

    func testThatPercentAndPlusAreEscaped() throws {
        XCTAssertEqual(try query(["percent": "100%", "plus": "a+b", "escaped": "%25"]),
                       "escaped=%2525&percent=100%25&plus=a%2Bb")
    }

    func testThatNonASCIIIsEscapedAsUTF8() {
        let encoding = URLEncoding.default
        XCTAssertEqual(encoding.escape("😀🇫🇷"), "%F0%9F%98%80%F0%9F%87%AB%F0%9F%87%B7")
        XCTAssertEqual(encoding.escape("مرحبا"), "%D9%85%D8%B1%D8%AD%D8%A8%D8%A7")
        XCTAssertEqual(encoding.escape("你好 世界"), "%E4%BD%A0%E5%A5%BD%20%E4%B8%96%E7%95%8C")
        XCTAssertEqual(encoding.escape("é"), "%C3%A9")
    }

    func testThatEscapedKeysAndValuesRoundTripThroughTheQuery() throws {
        // Given
        let request = try URLEncoding.queryString.encode(EncodingTestSupport.request(), with: ["k&=y": "v&=?/ 😀"])
        // When
        let items = URLComponents(url: try XCTUnwrap(request.url), resolvingAgainstBaseURL: false)?.queryItems
        // Then
        XCTAssertEqual(items, [URLQueryItem(name: "k&=y", value: "v&=?/ 😀")])
    }

    func testThatAStringOfThousandsOfCharactersIsEscapedCompletely() {
        // Given
        let unit = "a😀 é/中"
        let long = String(repeating: unit, count: 2_000)
        // When
        let escaped = URLEncoding.default.escape(long)
        // Then
        XCTAssertEqual(escaped, String(repeating: "a%F0%9F%98%80%20%C3%A9/%E4%B8%AD", count: 2_000))
        XCTAssertEqual(escaped.removingPercentEncoding, long)
    }

    func testThatQueryComponentsAreExposedEscaped() throws {
        // When
        let components = try URLEncoding.default.queryComponents(fromKey: "a b", value: ["c": [1, true]])
        // Then
        XCTAssertEqual(components.map { "\($0)=\($1)" }, ["a%20b%5Bc%5D%5B%5D=1", "a%20b%5Bc%5D%5B%5D=1"])
    }
}
