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
            .builtIn { _, _, _ in .success },
            .custom { _, _, _ in .success },
            .custom { _, _, _ in .failure(First()) },
            .builtIn { _, _, _ in .failure(Second()) },
        ]
        let error = ResponseValidator.run(validators, request: nil, response: LazyResponse(built: response()), data: nil)
        guard case let .responseValidationFailed(.customValidationFailed(underlying))? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertTrue(underlying is First)
    }

    private func head(_ lines: [String]) -> LazyResponse {
        var head = ResponseHead()
        for line in lines + [""] {
            Array((line + "\r\n").utf8).withUnsafeBufferPointer { head.consume($0) }
        }
        return LazyResponse(head: head, url: URL(string: "http://example.test/x")!)
    }

    /// `validate(statusCode:)` keeps the sequence it was given; arrays, ranges and sets are checked
    /// directly, any other sequence through `contains`: every kind gives the same answer.
    func testThatEveryKindOfStatusCodeSequenceGivesTheSameAnswer() {
        let kinds: [(String, any Sequence<Int> & Sendable)] = [
            ("array", [200, 204]), ("range", 200..<205), ("closed range", 200...204), ("set", Set([200, 204])),
            ("stride", stride(from: 200, through: 204, by: 4)),
        ]
        for (name, codes) in kinds {
            for (status, expected) in [(200, true), (204, true), (199, false), (404, false)] {
                let error = ResponseValidator.run([.statusCode(codes)], request: nil,
                                                  response: head(["HTTP/1.1 \(status) Status"]), data: nil)
                if expected {
                    XCTAssertNil(error, "\(name) accepts \(status)")
                } else {
                    guard case .responseValidationFailed(reason: .unacceptableStatusCode(code: status))? = error else {
                        return XCTFail("\(name) refuses \(status) with its code, got \(String(describing: error))")
                    }
                }
            }
        }
    }

    func testThatBuiltInValidatorsReadTheHeadWithoutBuildingAnHTTPURLResponse() {
        let ok = head(["HTTP/1.1 200 OK", "Content-Type: application/json; charset=utf-8", "Content-Length: 2"])
        let rules: [DataValidator] = [
            .builtIn { _, response, _ in ResponseValidator.statusCode(response, acceptable: [200]) },
            .builtIn { _, response, data in ResponseValidator.contentType(response, data: data, acceptable: ["application/json"]) },
        ]
        XCTAssertNil(ResponseValidator.run(rules, request: nil, response: ok, data: Data("{}".utf8)))
        XCTAssertFalse(ok.hasBuiltResponse, "a built-in rule made Foundation build the response")

        let missing = head(["HTTP/1.1 404 Not Found", "Content-Type: text/html"])
        guard case .unacceptableStatusCode(404)? = reason(ResponseValidator.run(rules, request: nil, response: missing,
                                                                                 data: Data("x".utf8))) else {
            return XCTFail("a 404 passed the status rule")
        }
        let html = head(["HTTP/1.1 200 OK", "Content-Type: text/html"])
        guard case .unacceptableContentType(_, "text/html")? = reason(ResponseValidator.run(rules, request: nil,
                                                                                             response: html,
                                                                                             data: Data("x".utf8))) else {
            return XCTFail("text/html passed the content-type rule")
        }

        let custom: [DataValidator] = [.custom { _, response, _ in
            response.value(forHTTPHeaderField: "Content-Length") == "2" ? .success : .failure(CurlfireError.explicitlyCancelled)
        }]
        XCTAssertNil(ResponseValidator.run(custom, request: nil, response: ok, data: nil))
        XCTAssertTrue(ok.hasBuiltResponse, "a user's closure sees the built response")
    }

    private func reason(_ error: CurlfireError?) -> CurlfireError.ResponseValidationFailureReason? {
        guard case let .responseValidationFailed(reason)? = error else { return nil }
        return reason
    }
}
