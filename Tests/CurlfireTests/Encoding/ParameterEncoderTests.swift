import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

final class ParameterEncoderTests: XCTestCase {
    private struct Body: Encodable {
        let name = "a b"
        let count = 2
    }

    // MARK: - JSON

    func testThatJSONParameterEncoderWritesABodyAndContentType() throws {
        // When
        let request = try JSONParameterEncoder.sortedKeys.encode(Body(), into: EncodingTestSupport.request(.post))
        // Then
        XCTAssertEqual(EncodingTestSupport.bodyText(request), #"{"count":2,"name":"a b"}"#)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testThatJSONParameterEncoderPresetsConfigureTheEncoder() throws {
        XCTAssertTrue(JSONParameterEncoder.prettyPrinted.encoder.outputFormatting.contains(.prettyPrinted))
        XCTAssertTrue(JSONParameterEncoder.sortedKeys.encoder.outputFormatting.contains(.sortedKeys))
        XCTAssertEqual(JSONParameterEncoder.default.encoder.outputFormatting, [])
        let pretty = try JSONParameterEncoder.prettyPrinted.encode(["a": 1], into: EncodingTestSupport.request(.post))
        XCTAssertTrue(try XCTUnwrap(EncodingTestSupport.bodyText(pretty)).contains("\n"))
    }

    func testThatJSONParameterEncoderKeepsContentTypeAndIgnoresNil() throws {
        var request = EncodingTestSupport.request(.post)
        XCTAssertEqual(try JSONParameterEncoder.default.encode(Body?.none, into: request), request)
        request.setValue("text/json", forHTTPHeaderField: "Content-Type")
        XCTAssertEqual(try JSONParameterEncoder.default.encode(Body(), into: request).value(forHTTPHeaderField: "Content-Type"),
                       "text/json")
    }

    func testThatJSONParameterEncoderWrapsEncoderErrors() {
        XCTAssertThrowsCurlfireError(try JSONParameterEncoder.default.encode(["x": Double.nan], into: EncodingTestSupport.request(.post))) {
            guard case let .parameterEncodingFailed(.jsonEncodingFailed(error)) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(error is EncodingError)
        }
    }

    func testThatJSONParameterEncoderIsSafeToShareAcrossThreads() throws {
        let encoder = JSONParameterEncoder.sortedKeys
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let request = try? encoder.encode(["i": index], into: EncodingTestSupport.request(.post))
            XCTAssertEqual(request.flatMap(EncodingTestSupport.bodyText), #"{"i":\#(index)}"#)
        }
    }

    // MARK: - Form

    func testThatFormParameterEncoderUsesTheQueryForGETAndTheBodyForPOST() throws {
        // When
        let get = try URLEncodedFormParameterEncoder.default.encode(
            Body(), into: EncodingTestSupport.request(.get, url: URL(string: "https://example.com/p?z=0")!))
        let post = try URLEncodedFormParameterEncoder.default.encode(Body(), into: EncodingTestSupport.request(.post))
        // Then
        XCTAssertEqual(get.url?.absoluteString, "https://example.com/p?z=0&count=2&name=a%20b")
        XCTAssertNil(get.httpBody)
        XCTAssertEqual(EncodingTestSupport.bodyText(post), "count=2&name=a%20b")
        XCTAssertEqual(post.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
    }

    func testThatFormParameterEncoderDestinationsAreHonoured() throws {
        let query = URLEncodedFormParameterEncoder(destination: .queryString)
        let body = URLEncodedFormParameterEncoder(encoder: URLEncodedFormEncoder(spaceEncoding: .plusReplaced),
                                                  destination: .httpBody)
        for method in [HTTPMethod.get, .head, .delete, .post, .put] {
            let inQuery = try query.encode(Body(), into: EncodingTestSupport.request(method))
            XCTAssertEqual(inQuery.url?.query, "count=2&name=a%20b", "\(method)")
            let inBody = try body.encode(Body(), into: EncodingTestSupport.request(method))
            XCTAssertEqual(EncodingTestSupport.bodyText(inBody), "count=2&name=a+b", "\(method)")
        }
    }

    func testThatFormParameterEncoderLeavesTheRequestForNilOrEmptyValues() throws {
        struct Empty: Encodable {}
        let request = EncodingTestSupport.request(.post)
        XCTAssertEqual(try URLEncodedFormParameterEncoder.default.encode(Body?.none, into: request), request)
        XCTAssertEqual(try URLEncodedFormParameterEncoder.default.encode(Empty(), into: request), request)
    }

    func testThatFormParameterEncoderWrapsErrorsAsCustomEncodingFailed() {
        XCTAssertThrowsCurlfireError(try URLEncodedFormParameterEncoder.default.encode([1, 2], into: EncodingTestSupport.request(.post))) {
            guard case let .parameterEncodingFailed(.customEncodingFailed(error)) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(error as? URLEncodedFormEncoder.Error, .invalidRootObject("Array<Int>"))
        }
    }
}
