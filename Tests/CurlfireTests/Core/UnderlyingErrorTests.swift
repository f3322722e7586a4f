import Curlfire
import XCTest

/// `underlyingError` hands back the error inside every case that wraps one.
final class UnderlyingErrorTests: XCTestCase {
    struct MyError: Error, Equatable {}

    func testThatEveryWrappingCaseGivesItsErrorBack() {
        let url = URL(fileURLWithPath: "/tmp/x")
        let wrapped: [CurlfireError] = [
            .responseValidationFailed(reason: .customValidationFailed(error: MyError())),
            .responseSerializationFailed(reason: .customSerializationFailed(error: MyError())),
            .responseSerializationFailed(reason: .decodingFailed(error: MyError())),
            .requestAdaptationFailed(error: MyError()),
            .requestRetryFailed(retryError: MyError(), originalError: CurlfireError.explicitlyCancelled),
            .multipartEncodingFailed(reason: .bodyPartFileNotReachableWithError(atURL: url, error: MyError())),
            .multipartEncodingFailed(reason: .bodyPartFileSizeQueryFailedWithError(forURL: url, error: MyError())),
            .multipartEncodingFailed(reason: .outputStreamWriteFailed(error: MyError())),
            .multipartEncodingFailed(reason: .inputStreamReadFailed(error: MyError())),
            .downloadedFileMoveFailed(error: MyError(), source: url, destination: url),
            .parameterEncodingFailed(reason: .customEncodingFailed(error: MyError())),
        ]
        for error in wrapped {
            XCTAssertEqual(error.underlyingError as? MyError, MyError(), "\(error)")
        }
        XCTAssertNil(CurlfireError.explicitlyCancelled.underlyingError)
        XCTAssertNil(CurlfireError.multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: url)).underlyingError)
    }
}
