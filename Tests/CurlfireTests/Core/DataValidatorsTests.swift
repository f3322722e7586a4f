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
