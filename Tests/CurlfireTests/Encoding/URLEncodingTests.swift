import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

final class URLEncodingTests: XCTestCase {
    private let encoding = URLEncoding.default

    private func query(_ parameters: Parameters, encoding: URLEncoding = .queryString) throws -> String? {
        try encoding.encode(EncodingTestSupport.request(), with: parameters).url?.query
    }

    // MARK: - Seed example and structure

    func testThatSeedExampleEncodesToTheDocumentedString() throws {
        // Given
        let parameters: Parameters = [
            "name": "steve", "phone": ["mobile": "xx", "home": "xx"],
            "families": ["father", "mother"], "nums": Set(["1", "2"]),
        ]
        // When
        let result = try query(parameters)
        // Then
        XCTAssertEqual(result, "families%5B%5D=father&families%5B%5D=mother&name=steve&nums%5B%5D=1&nums%5B%5D=2"
                       + "&phone%5Bhome%5D=xx&phone%5Bmobile%5D=xx")
    }

    func testThatNilParametersLeaveTheRequestUnchanged() throws {
        // Given
        let request = EncodingTestSupport.request(.post)
        // When
        let encoded = try encoding.encode(request, with: nil)
        // Then
        XCTAssertEqual(encoded, request)
        XCTAssertNil(encoded.httpBody)
        XCTAssertNil(encoded.value(forHTTPHeaderField: "Content-Type"))
    }

    func testThatEmptyParametersLeaveTheRequestUnchanged() throws {
        // Given
        let request = EncodingTestSupport.request(.post)
        // When
        let encoded = try encoding.encode(request, with: [:])
        let onlyEmptyArray = try encoding.encode(request, with: ["a": [String]()])
        // Then
        XCTAssertEqual(encoded, request)
        XCTAssertEqual(onlyEmptyArray, request)
        XCTAssertEqual(try encoding.encode(EncodingTestSupport.request(), with: [:]).url?.absoluteString,
                       "https://example.com/")
    }

    func testThatKeysAreSortedAtEveryDepth() throws {
        // Given
        let parameters: Parameters = ["z": 1, "a": ["y": 1, "b": ["d": 1, "c": 2]], "m": 3]
        // When
        let result = try query(parameters)
        // Then
        XCTAssertEqual(result, "a%5Bb%5D%5Bc%5D=2&a%5Bb%5D%5Bd%5D=1&a%5By%5D=1&m=3&z=1")
    }

    func testThatNestedDictionariesUseBracketedKeys() throws {
        XCTAssertEqual(try query(["foo": ["bar": ["baz": "x"]]]), "foo%5Bbar%5D%5Bbaz%5D=x")
    }

    func testThatArraysOfDictionariesAreEncodedInOrder() throws {
        // Given
        let parameters: Parameters = ["items": [["b": 2, "a": 1], ["a": 3]]]
        // When / Then
        XCTAssertEqual(try query(parameters), "items%5B%5D%5Ba%5D=1&items%5B%5D%5Bb%5D=2&items%5B%5D%5Ba%5D=3")
        let indexed = URLEncoding(destination: .queryString, arrayEncoding: .indexInBrackets)
        XCTAssertEqual(try query(parameters, encoding: indexed),
                       "items%5B0%5D%5Ba%5D=1&items%5B0%5D%5Bb%5D=2&items%5B1%5D%5Ba%5D=3")
    }

    func testThatNestedArraysAreEncoded() throws {
        let indexed = URLEncoding(destination: .queryString, arrayEncoding: .indexInBrackets)
        XCTAssertEqual(try query(["a": [[1, 2], [3]]], encoding: indexed),
                       "a%5B0%5D%5B0%5D=1&a%5B0%5D%5B1%5D=2&a%5B1%5D%5B0%5D=3")
        XCTAssertEqual(try query(["a": [[1, 2]]]), "a%5B%5D%5B%5D=1&a%5B%5D%5B%5D=2")
    }

    func testThatArrayEncodingsProduceTheirKeys() throws {
        // Given
        let parameters: Parameters = ["foo": ["a", "b"]]
        // When / Then
        XCTAssertEqual(try query(parameters, encoding: URLEncoding(destination: .queryString, arrayEncoding: .brackets)),
                       "foo%5B%5D=a&foo%5B%5D=b")
        XCTAssertEqual(try query(parameters, encoding: URLEncoding(destination: .queryString, arrayEncoding: .noBrackets)),
                       "foo=a&foo=b")
        XCTAssertEqual(
            try query(parameters, encoding: URLEncoding(destination: .queryString, arrayEncoding: .indexInBrackets)),
            "foo%5B0%5D=a&foo%5B1%5D=b")
    }

    func testThatSetsOfNumbersAreSortedDeterministically() throws {
        // Given
        let parameters: Parameters = ["n": Set([3, 1, 2])]
        // When
        let results = try (0..<5).map { _ in try query(parameters) }
        // Then
        XCTAssertEqual(Set(results).count, 1)
        XCTAssertEqual(results.first, "n%5B%5D=1&n%5B%5D=2&n%5B%5D=3")
    }

    func testThatNullAndNilEncodeAsAnEmptyValue() throws {
        // Given
        let missing: String? = nil
        let present: String? = "x"
        // When / Then
        XCTAssertEqual(try query(["a": NSNull(), "b": missing as Any, "c": present as Any]), "a=&b=&c=x")
    }

    func testThatURLValuesUseTheirAbsoluteString() throws {
        XCTAssertEqual(try query(["u": URL(string: "https://a.b/c?d=e")!]), "u=https%3A//a.b/c?d%3De")
    }

    // MARK: - Destinations

    func testThatMethodDependentDestinationUsesTheQueryForGETHEADAndDELETE() throws {
        for method in [HTTPMethod.get, .head, .delete] {
            // When
            let request = try encoding.encode(EncodingTestSupport.request(method), with: ["a": 1])
            // Then
            XCTAssertEqual(request.url?.absoluteString, "https://example.com/?a=1", "\(method)")
            XCTAssertNil(request.httpBody, "\(method)")
            XCTAssertNil(request.value(forHTTPHeaderField: "Content-Type"), "\(method)")
        }
    }

    func testThatMethodDependentDestinationUsesTheBodyForOtherMethods() throws {
        for method in [HTTPMethod.post, .put, .patch, .options, .trace, .connect] {
            // When
            let request = try encoding.encode(EncodingTestSupport.request(method), with: ["a": 1, "b": "x y"])
            // Then
            XCTAssertEqual(request.url?.absoluteString, "https://example.com/", "\(method)")
            XCTAssertEqual(EncodingTestSupport.bodyText(request), "a=1&b=x%20y", "\(method)")
            XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"),
                           "application/x-www-form-urlencoded; charset=utf-8", "\(method)")
        }
    }

    func testThatQueryStringDestinationUsesTheQueryForPOST() throws {
        let request = try URLEncoding.queryString.encode(EncodingTestSupport.request(.post), with: ["a": 1])
        XCTAssertEqual(request.url?.absoluteString, "https://example.com/?a=1")
        XCTAssertNil(request.httpBody)
    }

    func testThatHTTPBodyDestinationUsesTheBodyForGET() throws {
        let request = try URLEncoding.httpBody.encode(EncodingTestSupport.request(.get), with: ["a": 1])
        XCTAssertEqual(request.url?.absoluteString, "https://example.com/")
        XCTAssertEqual(EncodingTestSupport.bodyText(request), "a=1")
    }

    func testThatAnExistingContentTypeIsKept() throws {
        // Given
        var request = EncodingTestSupport.request(.post)
        request.setValue("text/plain", forHTTPHeaderField: "content-type")
        // When
        let encoded = try encoding.encode(request, with: ["a": 1])
        // Then
        XCTAssertEqual(encoded.value(forHTTPHeaderField: "Content-Type"), "text/plain")
        XCTAssertEqual(EncodingTestSupport.bodyText(encoded), "a=1")
    }

    func testThatAnExistingQueryIsKeptInFront() throws {
        // Given
        let request = EncodingTestSupport.request(url: URL(string: "https://example.com/p?a=1#frag")!)
        // When
        let encoded = try encoding.encode(request, with: ["b": 2])
        // Then
        XCTAssertEqual(encoded.url?.absoluteString, "https://example.com/p?a=1&b=2#frag")
    }

    func testThatAnEmptyExistingQueryGetsNoLeadingAmpersand() throws {
        let request = EncodingTestSupport.request(url: URL(string: "https://example.com/p?")!)
        XCTAssertEqual(try encoding.encode(request, with: ["b": 2]).url?.absoluteString, "https://example.com/p?b=2")
    }

    func testThatAMissingURLThrowsMissingURL() {
        // Given
        var request = EncodingTestSupport.request()
        request.url = nil
        // When / Then
        XCTAssertThrowsCurlfireError(try encoding.encode(request, with: ["a": 1])) { error in
            guard case .parameterEncodingFailed(.missingURL) = error else { return XCTFail("\(error)") }
        }
    }
}
