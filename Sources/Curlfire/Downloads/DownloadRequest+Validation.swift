import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

extension DownloadRequest {
    /// Adds a custom validation closure, which sees the request, the response and the temporary and
    /// destination file URLs. Handlers attached after this call run it (in order with the other
    /// validators) once the file is in place; the first failure becomes the response's error.
    public func validate(_ validation: @escaping Validation) -> Self {
        var copy = self
        copy.validators.append(validation)
        return copy
    }

    /// Accepts only status codes in `acceptableStatusCodes`; otherwise
    /// ``CurlfireError/ResponseValidationFailureReason/unacceptableStatusCode(code:)``.
    public func validate<S: Sequence & Sendable>(statusCode acceptableStatusCodes: S) -> Self where S.Element == Int {
        validate { _, response, _, _ in ResponseValidator.statusCode(response, acceptable: acceptableStatusCodes) }
    }

    /// Accepts only the given MIME types (`*/*` and `type/*` wildcards; parameters after `;` ignored).
    /// Skipped when the downloaded file is empty (its size is read, not its bytes); a missing file is
    /// ``CurlfireError/ResponseValidationFailureReason/dataFileNil``, one that cannot be inspected
    /// ``CurlfireError/ResponseValidationFailureReason/dataFileReadFailed(at:)``.
    public func validate<S: Sequence & Sendable>(contentType acceptableContentTypes: @escaping @autoclosure @Sendable () -> S) -> Self
    where S.Element == String {
        validate { _, response, temporaryURL, destinationURL in
            DownloadValidator.contentType(response, fileURL: destinationURL ?? temporaryURL,
                                          acceptable: Array(acceptableContentTypes()))
        }
    }

    /// Accepts status codes 200..<300 and, when the request has an `Accept` header, only the
    /// content types it lists.
    public func validate() -> Self {
        validate { request, response, temporaryURL, destinationURL in
            if case let .failure(error) = ResponseValidator.statusCode(response, acceptable: 200..<300) {
                return .failure(error)
            }
            return DownloadValidator.contentType(response, fileURL: destinationURL ?? temporaryURL,
                                                 acceptable: ResponseValidator.acceptableContentTypes(of: request))
        }
    }
}

/// Download validation rules (pure functions over the response and the file's size).
enum DownloadValidator {
    static func contentType(_ response: HTTPURLResponse, fileURL: URL?, acceptable: [String]) -> ValidationResult {
        guard let fileURL else { return .failure(CurlfireError.responseValidationFailed(reason: .dataFileNil)) }
        var info = stat()
        guard stat(fileURL.path, &info) == 0 else {
            return .failure(CurlfireError.responseValidationFailed(reason: .dataFileReadFailed(at: fileURL)))
        }
        guard info.st_size > 0 else { return .success }
        return ResponseValidator.contentType(response, acceptable: acceptable)
    }

    /// Runs validators in order; the first failure, as a ``CurlfireError``.
    static func run(_ validators: [DownloadRequest.Validation], request: URLRequest?, response head: LazyResponse?,
                    files: DownloadFiles) -> CurlfireError? {
        guard !validators.isEmpty, let response = head?.response else { return nil }
        for validator in validators {
            if case let .failure(error) = validator(request, response, files.temporaryURL, files.destinationURL) {
                return (error as? CurlfireError) ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
            }
        }
        return nil
    }
}
