@testable import Curlfire
import XCTest

/// The validator list of a data request: order kept, one array kept as it is, and small enough that a
/// `DataRequest` still fits an existential's inline buffer.
final class DataValidatorsTests: XCTestCase {
    private func head(status: Int) -> LazyResponse {
        LazyResponse(built: HTTPURLResponse(url: URL(string: "http://example.test/x")!, statusCode: status,
                                            httpVersion: "HTTP/1.1", headerFields: [:])!)
    }

    private func codes(_ validators: DataValidators) -> [String] {
        validators.map { validator -> String in
            switch validator {
            case let .statusCode(codes): return "codes \(Array(codes))"
            case .builtIn: return "builtIn"
            case .custom: return "custom"
            }
        }
    }

    func testThatOneStatusCodeArrayIsTheOnlyValidatorAndRuns() {
        var validators = DataValidators()
        XCTAssertTrue(validators.isEmpty)
        validators.append(.statusCode([200, 204]))
        XCTAssertFalse(validators.isEmpty)
        XCTAssertEqual(codes(validators), ["codes [200, 204]"])
        XCTAssertNil(ResponseValidator.run(validators, request: nil, response: head(status: 204), data: nil))
        guard case .responseValidationFailed(.unacceptableStatusCode(code: 500))? =
            ResponseValidator.run(validators, request: nil, response: head(status: 500), data: nil) else {
            return XCTFail("500 passed the status-code validator")
        }
    }

    func testThatValidatorsAfterAStatusCodeArrayKeepTheirOrder() {
        var validators = DataValidators()
        validators.append(.statusCode([200]))
        validators.append(.builtIn { _, _, _ in .success })
        validators.append(.statusCode(200..<300))
        validators.append(.custom { _, _, _ in .success })
        XCTAssertEqual(codes(validators).map { $0.prefix(12) },
                       ["codes [200]", "builtIn", "codes [200, ", "custom"])
    }

    func testThatARangeFirstGoesToTheListAndStillRuns() {
        var validators = DataValidators()
        validators.append(.statusCode(200..<300))
        validators.append(.builtIn { _, _, _ in .failure(CurlfireError.explicitlyCancelled) })
        XCTAssertEqual(codes(validators).count, 2)
        guard case .explicitlyCancelled? = ResponseValidator.run(validators, request: nil, response: head(status: 200),
                                                                 data: nil) else {
            return XCTFail("the second validator did not run")
        }
    }

    /// `validate(statusCode:)` with an array keeps it without a cast; a second call, or a validator
    /// before it, goes to the list; both run the same rule.
    func testThatAnArrayPassedToValidateIsKeptAsItIsAndChecked() {
        var first = DataValidators()
        first.append(statusCodes: [200, 204])
        XCTAssertEqual(first.onlyStatusCodes, [200, 204])
        XCTAssertEqual(codes(first), ["codes [200, 204]"])
        XCTAssertNil(ResponseValidator.run(first, request: nil, response: head(status: 200), data: nil))
        guard case .responseValidationFailed(.unacceptableStatusCode(code: 404))? =
            ResponseValidator.run(first, request: nil, response: head(status: 404), data: nil) else {
            return XCTFail("404 passed the status-code validator")
        }
        first.append(statusCodes: [204])
        XCTAssertNil(first.onlyStatusCodes, "a second validator moves both to the list")
        XCTAssertEqual(codes(first), ["codes [200, 204]", "codes [204]"])
        guard case .responseValidationFailed(.unacceptableStatusCode(code: 200))? =
            ResponseValidator.run(first, request: nil, response: head(status: 200), data: nil) else {
            return XCTFail("200 passed the second status-code validator")
        }
        var second = DataValidators([.builtIn { _, _, _ in .success }])
        second.append(statusCodes: [201])
        XCTAssertEqual(codes(second), ["builtIn", "codes [201]"])
    }

    func testThatValidateTellsAnArrayFromOtherSequencesByItsType() {
        let session = SessionManager(configuration: .default)
        session.startRequestsImmediately = false
        let array = session.request("http://127.0.0.1:1/x").validate(statusCode: [200])
        XCTAssertEqual(array._dataRequest.validators.onlyStatusCodes, [200])
        let range = session.request("http://127.0.0.1:1/x").validate(statusCode: 200..<300)
        XCTAssertNil(range._dataRequest.validators.onlyStatusCodes)
        XCTAssertEqual(codes(range._dataRequest.validators), ["codes \(Array(200..<300))"])
        let set = session.request("http://127.0.0.1:1/x").validate(statusCode: Set([200]))
        XCTAssertNil(set._dataRequest.validators.onlyStatusCodes)
        XCTAssertEqual(codes(set._dataRequest.validators), ["codes [200]"])
    }

    func testThatCopiesDoNotShareAppends() {
        var first = DataValidators([.statusCode([200]), .builtIn { _, _, _ in .success }])
        let second = first
        first.append(.custom { _, _, _ in .success })
        XCTAssertEqual(codes(first).count, 3)
        XCTAssertEqual(codes(second).count, 2)
    }

    func testThatADataRequestFitsAnExistentialsInlineBuffer() {
        XCTAssertEqual(MemoryLayout<DataValidators>.size, MemoryLayout<Int>.size)
        XCTAssertLessThanOrEqual(MemoryLayout<DataRequest>.size, 3 * MemoryLayout<Int>.size)
    }
}
