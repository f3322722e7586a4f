import Foundation
import FoundationNetworking

/// A validation closure of a stream: it sees the request and the response head (no body).
typealias StreamValidator = @Sendable (URLRequest?, HTTPURLResponse) -> ValidationResult

extension StreamRequest {
    /// The signature of a custom stream validation closure, as Alamofire 5's `DataStreamRequest.Validation`.
    public typealias Validation = @Sendable (URLRequest?, HTTPURLResponse) -> ValidationResult

    /// What `validate()` checks, for stream and event-stream requests alike: status 200..<300 and,
    /// when the request's `Accept` header lists types, a `Content-Type` among them.
    static let defaultValidation: Validation = { request, response in
        if case let .failure(error) = ResponseValidator.statusCode(response, acceptable: 200..<300) {
            return .failure(error)
        }
        let acceptable = ResponseValidator.acceptableContentTypes(of: request)
        if acceptable == ["*/*"] { return .success }
        return ResponseValidator.contentType(response, acceptable: acceptable)
    }

    /// Adds a custom validation closure, run once on the response head before any chunk is
    /// delivered. A failure cancels the transfer and ends the stream with the error (a
    /// ``CurlfireError`` is kept as is; any other error becomes
    /// ``CurlfireError/ResponseValidationFailureReason/customValidationFailed(error:)``): no chunk is
    /// delivered. Consumers attached after this call run it.
    ///
    /// - Parameter validation: The closure.
    /// - Returns:              The request.
    public func validate(_ validation: @escaping Validation) -> Self {
        var copy = self
        copy.validators.append(validation)
        return copy
    }

    /// Accepts only status codes in `acceptableStatusCodes`; otherwise the stream ends with
    /// ``CurlfireError/ResponseValidationFailureReason/unacceptableStatusCode(code:)`` before any chunk.
    ///
    /// - Parameter acceptableStatusCodes: The acceptable codes.
    /// - Returns:                         The request.
    public func validate<S: Sequence & Sendable>(statusCode acceptableStatusCodes: S) -> Self where S.Element == Int {
        validate { _, response in ResponseValidator.statusCode(response, acceptable: acceptableStatusCodes) }
    }

    /// Accepts only the given MIME types (`*/*` and `type/*` wildcards); a missing `Content-Type`
    /// fails with `missingContentType`.
    ///
    /// - Parameter acceptableContentTypes: The acceptable types.
    /// - Returns:                          The request.
    public func validate<S: Sequence & Sendable>(contentType acceptableContentTypes: @escaping @autoclosure @Sendable () -> S)
        -> Self where S.Element == String {
        validate { _, response in ResponseValidator.contentType(response, acceptable: Array(acceptableContentTypes())) }
    }

    /// Accepts status codes 200..<300 and, when the request has an `Accept` header, only the
    /// content types it lists.
    ///
    /// - Returns: The request.
    public func validate() -> Self {
        validate(StreamRequest.defaultValidation)
    }
}

/// A consumer's validators, run once, on the first chunk or at the end, whichever comes first.
/// `@unchecked Sendable`: the validators and closures are constants; `state` is touched only under `lock`.
final class StreamValidation: @unchecked Sendable {
    private enum State { case pending, passed, failed(CurlfireError) }

    private let validators: [StreamValidator]
    private let request: @Sendable () -> URLRequest?
    private let cancel: @Sendable () -> Void
    private let lock = Lock.make()
    private var state = State.pending

    init(validators: [StreamValidator], request: @escaping @Sendable () -> URLRequest?,
         cancel: @escaping @Sendable () -> Void) {
        self.validators = validators
        self.request = request
        self.cancel = cancel
        if validators.isEmpty { state = .passed }
    }

    /// The validation error, if the response failed (validating it now if not done yet). A
    /// failure cancels the transfer, once. `nil` response: nothing to validate yet.
    func check(_ response: HTTPURLResponse?) -> CurlfireError? {
        switch lock.withLock({ state }) {
        case .passed: return nil
        case let .failed(error): return error
        case .pending: break
        }
        guard let response else { return nil }
        let request = request()
        var failure: CurlfireError?
        for validator in validators {
            if case let .failure(error) = validator(request, response) {
                failure = (error as? CurlfireError) ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
                break
            }
        }
        let (result, first) = lock.withLock { () -> (CurlfireError?, Bool) in
            switch state {
            case .passed: return (nil, false)
            case let .failed(error): return (error, false)
            case .pending:
                state = failure.map(State.failed) ?? .passed
                return (failure, failure != nil)
            }
        }
        if first { cancel() }
        return result
    }

    /// `completion` with the validation error in place of the cancellation it caused; a transport
    /// error that came first is kept.
    func finished(_ completion: StreamRequest.Completion) -> StreamRequest.Completion {
        let error: CurlfireError?
        if let failed = lock.withLock({ () -> CurlfireError? in
            if case let .failed(error) = state { return error } else { return nil }
        }) {
            error = failed
        } else if completion.error == nil {
            error = check(completion.response)
        } else {
            error = completion.error
        }
        return StreamRequest.Completion(request: completion.request, response: completion.response,
                                        timeline: completion.timeline, metrics: completion.metrics, error: error)
    }
}
