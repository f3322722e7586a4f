import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

final class JSONEncodingTests: XCTestCase {
    func testThatParametersBecomeSortedCompactJSON() throws {
        // Given
        let parameters: Parameters = ["b": [3, 2], "a": ["z": true, "y": "x"], "c": NSNull()]
        // When
        let request = try JSONEncoding.default.encode(EncodingTestSupport.request(.post), with: parameters)
        // Then
        XCTAssertEqual(EncodingTestSupport.bodyText(request), #"{"a":{"y":"x","z":true},"b":[3,2],"c":null}"#)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testThatPrettyPrintedJSONIsIndentedAndSorted() throws {
        let request = try JSONEncoding.prettyPrinted.encode(EncodingTestSupport.request(.post), with: ["b": 1, "a": 2])
        let text = try XCTUnwrap(EncodingTestSupport.bodyText(request))
        XCTAssertTrue(text.contains("\n"))
        XCTAssertLessThan(try XCTUnwrap(text.range(of: "\"a\"")).lowerBound, try XCTUnwrap(text.range(of: "\"b\"")).lowerBound)
        let decoded = try JSONSerialization.jsonObject(with: try XCTUnwrap(request.httpBody)) as? [String: Int]
        XCTAssertEqual(decoded, ["a": 2, "b": 1])
    }

    func testThatTheOutputIsTheSameOnEveryRun() throws {
        let parameters: Parameters = ["k\(1)": ["d": 1, "c": 2, "b": 3, "a": 4], "k2": ["z": ["y": 1, "x": 2]]]
        let bodies = try (0..<10).map { _ in
            try JSONEncoding.default.encode(EncodingTestSupport.request(.post), with: parameters).httpBody
        }
        XCTAssertEqual(Set(bodies).count, 1)
    }

    func testThatArraysAreEncodedWithJSONObject() throws {
        let request = try JSONEncoding.default.encode(EncodingTestSupport.request(.post), withJSONObject: [1, "two", ["b": 1, "a": 0]])
        XCTAssertEqual(EncodingTestSupport.bodyText(request), #"[1,"two",{"a":0,"b":1}]"#)
    }

    func testThatInvalidObjectsThrowJSONEncodingFailedInsteadOfCrashing() {
        let invalid: [Parameters] = [["date": Date()], ["nan": Double.nan], ["inf": Double.infinity], ["object": NSObject()]]
        for parameters in invalid {
            XCTAssertThrowsCurlfireError(try JSONEncoding.default.encode(EncodingTestSupport.request(.post), with: parameters)) { error in
                guard case let .parameterEncodingFailed(.jsonEncodingFailed(underlying)) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(underlying is JSONEncoding.InvalidJSONObjectError)
            }
        }
        XCTAssertThrowsCurlfireError(try JSONEncoding.default.encode(EncodingTestSupport.request(.post), withJSONObject: "fragment")) {
            XCTAssertTrue($0.isParameterEncodingError)
        }
    }

    func testThatNilOrEmptyParametersAndAnExistingContentTypeAreRespected() throws {
        // Given
        var request = EncodingTestSupport.request(.post)
        // When / Then
        XCTAssertEqual(try JSONEncoding.default.encode(request, with: nil), request)
        XCTAssertEqual(try JSONEncoding.default.encode(request, with: [:]), request)
        XCTAssertEqual(try JSONEncoding.default.encode(request, withJSONObject: nil), request)
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let encoded = try JSONEncoding.default.encode(request, with: ["a": 1])
        XCTAssertEqual(encoded.value(forHTTPHeaderField: "Content-Type"), "application/vnd.api+json")
        XCTAssertEqual(EncodingTestSupport.bodyText(encoded), #"{"a":1}"#)
    }
}

final class PropertyListEncodingTests: XCTestCase {
    private let parameters: Parameters = ["name": "Curlfire", "count": 3, "flag": true, "ratio": 0.5, "list": ["x", "y"]]

    private func roundTrip(_ encoding: PropertyListEncoding) throws -> (URLRequest, [String: Any]) {
        let request = try encoding.encode(EncodingTestSupport.request(.post), with: parameters)
        let body = try XCTUnwrap(request.httpBody)
        let decoded = try PropertyListSerialization.propertyList(from: body, format: nil)
        return (request, try XCTUnwrap(decoded as? [String: Any]))
    }

    func testThatXMLPropertyListsRoundTrip() throws {
        // When
        let (request, decoded) = try roundTrip(.xml)
        // Then
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/x-plist")
        XCTAssertTrue(try XCTUnwrap(EncodingTestSupport.bodyText(request)).hasPrefix("<?xml"))
        XCTAssertEqual(decoded["name"] as? String, "Curlfire")
        XCTAssertEqual(decoded["count"] as? Int, 3)
        XCTAssertEqual(decoded["flag"] as? Bool, true)
        XCTAssertEqual(decoded["ratio"] as? Double, 0.5)
        XCTAssertEqual(decoded["list"] as? [String], ["x", "y"])
    }

    func testThatBinaryPropertyListsRoundTrip() throws {
        // When
        let (request, decoded) = try roundTrip(.binary)
        // Then
        XCTAssertEqual(request.httpBody?.prefix(8), Data("bplist00".utf8))
        XCTAssertEqual(decoded["name"] as? String, "Curlfire")
        XCTAssertEqual(decoded["count"] as? Int, 3)
        XCTAssertEqual(decoded["list"] as? [String], ["x", "y"])
    }

    func testThatInvalidValuesThrowPropertyListEncodingFailed() {
        XCTAssertThrowsCurlfireError(try PropertyListEncoding.xml.encode(EncodingTestSupport.request(.post), with: ["n": NSNull()])) { error in
            guard case .parameterEncodingFailed(.propertyListEncodingFailed) = error else { return XCTFail("\(error)") }
        }
    }

    func testThatNilParametersLeaveTheRequestUnchanged() throws {
        let request = EncodingTestSupport.request(.post)
        XCTAssertEqual(try PropertyListEncoding.default.encode(request, with: nil), request)
    }
}

final class GETBodyCheckTests: XCTestCase {
    /// The session's check as it runs before a request is handed to the engine.
    private func check(_ request: URLRequest, allowed: Bool) -> CurlfireError? {
        let body: UploadBody = (request.httpBody?.isEmpty ?? true) ? .none : .data(request.httpBody!)
        return RequestChecks.validate(request, body: body, allowsBodyInGET: allowed)
    }

    func testThatAGETWithABodyIsRejectedUnlessAllowed() throws {
        // Given
        var get = EncodingTestSupport.request(.get)
        get.httpBody = Data("x".utf8)
        var unnamed = get
        unnamed.httpMethod = nil
        // When / Then
        guard case .bodyDataInGETRequest? = check(get, allowed: false) else { return XCTFail("GET with a body passed") }
        XCTAssertNotNil(check(unnamed, allowed: false))
        XCTAssertNil(check(get, allowed: true))
    }

    func testThatOtherRequestsPass() throws {
        var post = EncodingTestSupport.request(.post)
        post.httpBody = Data("x".utf8)
        var emptyGET = EncodingTestSupport.request(.get)
        emptyGET.httpBody = Data()
        XCTAssertNil(check(post, allowed: false))
        XCTAssertNil(check(emptyGET, allowed: false))
        XCTAssertNil(check(EncodingTestSupport.request(.get), allowed: false))
    }

    func testThatAFileBodyOnGETIsRejectedToo() {
        let get = EncodingTestSupport.request(.get)
        let body = UploadBody.file(URL(fileURLWithPath: "/etc/hostname"), removeAfterUpload: false)
        guard case .bodyDataInGETRequest? = RequestChecks.validate(get, body: body, allowsBodyInGET: false) else {
            return XCTFail("GET with a file body passed")
        }
    }
}
