@testable import Curlfire
import XCTest

final class ValidationTests: XCTestCase {
    private func response(status: Int = 200, contentType: String? = nil) -> HTTPURLResponse {
        var headers: [String: String] = [:]
        if let contentType { headers["Content-Type"] = contentType }
        return HTTPURLResponse(url: URL(string: "http://example.test/x")!, statusCode: status, httpVersion: "HTTP/1.1",
                               headerFields: headers)!
    }

    private func failureReason(_ result: ValidationResult) -> CurlfireError.ResponseValidationFailureReason? {
        guard case let .failure(error) = result, case let .responseValidationFailed(reason)? = error as? CurlfireError
        else { return nil }
        return reason
    }

    func testThatStatusCodeOutsideRangeFailsWithTheCode() {
        let result = ResponseValidator.statusCode(response(status: 404), acceptable: 200..<300)
        guard case let .unacceptableStatusCode(code)? = failureReason(result) else { return XCTFail("\(result)") }
        XCTAssertEqual(code, 404)
    }

    func testThatStatusCodeInsideRangeSucceeds() {
        guard case .success = ResponseValidator.statusCode(response(status: 204), acceptable: 200..<300) else {
            return XCTFail("204 must be acceptable")
        }
    }

    func testThatContentTypeWildcardsAndParametersAreHonoured() {
        let json = response(contentType: "application/json; charset=utf-8")
        let body = Data("{}".utf8)
        for acceptable in [["application/json"], ["application/*"], ["*/*"], ["text/plain", "APPLICATION/JSON"]] {
            guard case .success = ResponseValidator.contentType(json, data: body, acceptable: acceptable) else {
                return XCTFail("\(acceptable) must accept application/json")
            }
        }
    }

    func testThatMismatchedContentTypeFailsNamingBothTypes() {
        let result = ResponseValidator.contentType(response(contentType: "text/html"), data: Data("x".utf8),
                                                   acceptable: ["application/json"])
        guard case let .unacceptableContentType(acceptable, actual)? = failureReason(result) else {
            return XCTFail("\(result)")
        }
        XCTAssertEqual(acceptable, ["application/json"])
        XCTAssertEqual(actual, "text/html")
    }

    func testThatContentTypeValidationIsSkippedForAnEmptyBody() {
        guard case .success = ResponseValidator.contentType(response(contentType: "text/html"), data: Data(),
                                                            acceptable: ["application/json"]) else {
            return XCTFail("an empty body must not be content-type validated")
        }
    }

    func testThatMissingContentTypeFailsUnlessEverythingIsAcceptable() {
        let missing = ResponseValidator.contentType(response(), data: Data("x".utf8), acceptable: ["application/json"])
        guard case .missingContentType? = failureReason(missing) else { return XCTFail("\(missing)") }
        guard case .success = ResponseValidator.contentType(response(), data: Data("x".utf8), acceptable: ["*/*"]) else {
            return XCTFail("*/* accepts a missing type")
        }
    }

    func testThatAcceptableTypesComeFromTheAcceptHeader() {
        var request = URLRequest(url: URL(string: "http://example.test")!)
        XCTAssertEqual(ResponseValidator.acceptableContentTypes(of: request), ["*/*"])
        request.setValue("application/json, text/plain;q=0.5", forHTTPHeaderField: "Accept")
        XCTAssertEqual(ResponseValidator.acceptableContentTypes(of: request), ["application/json", "text/plain;q=0.5"])
    }

    func testThatValidatorsRunInOrderAndTheFirstFailureWins() {
        struct First: Error {}
        struct Second: Error {}
        let validators: [DataValidator] = [
            { _, _, _ in .success },
            { _, _, _ in .failure(First()) },
            { _, _, _ in .failure(Second()) },
        ]
        let error = ResponseValidator.run(validators, request: nil, response: response(), data: nil)
        guard case let .responseValidationFailed(.customValidationFailed(underlying))? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertTrue(underlying is First)
    }
}
