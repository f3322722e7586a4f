import Foundation
import FoundationNetworking

/// What a validation closure returns, as in Alamofire 4.
public enum ValidationResult: Sendable {
    /// The response is acceptable.
    case success
    /// The response is not acceptable, for this reason. A ``CurlfireError`` is kept as is; any
    /// other error becomes ``CurlfireError/ResponseValidationFailureReason/customValidationFailed(error:)``.
    case failure(Error)
}

/// A validator of a data request: a user's closure, which sees the built `HTTPURLResponse`, or one of
/// the built-in rules, which read the status and headers from the response head and so never make
/// Foundation build an `HTTPURLResponse` (about 1 µs per well-known header) nobody reads.
enum DataValidator: Sendable {
    /// A closure passed to `validate(_:)`.
    case custom(@Sendable (URLRequest?, HTTPURLResponse, Data?) -> ValidationResult)
    /// A built-in rule.
    case builtIn(@Sendable (LazyRequest?, any ResponseFacts, Data?) -> ValidationResult)
    /// `validate(statusCode:)`: the acceptable codes themselves, not a closure over them (a
    /// closure context per request; an array or range fits the existential's inline buffer).
    case statusCode(any Sequence<Int> & Sendable)
}

extension DataTransferRequest {
    /// The signature of a custom validation closure.
    public typealias Validation = @Sendable (URLRequest?, HTTPURLResponse, Data?) -> ValidationResult

    /// Adds a custom validation closure. Handlers attached after this call run it (in order with
    /// the other validators) once the response arrives; the first failure becomes the response's error.
    public func validate(_ validation: @escaping Validation) -> Self {
        adding(.custom(validation))
    }

    private func adding(_ validator: DataValidator) -> Self {
        changingValidators { $0.append(validator) }
    }

    private func changingValidators(_ change: (inout DataValidators) -> Void) -> Self {
        // Read, change, then set `_dataRequest` as a whole: changed in place through the protocol's
        // `modify` coroutine (`copy._dataRequest.validators.append`), the call allocated the
        // coroutine's frame, one allocation per `validate` (docs/Performance.md, "2026-11-27").
        var request = _dataRequest
        change(&request.validators)
        var copy = self
        copy._dataRequest = request
        return copy
    }

    /// Accepts only status codes in `acceptableStatusCodes`; otherwise
    /// ``CurlfireError/ResponseValidationFailureReason/unacceptableStatusCode(code:)``.
    public func validate<S: Sequence & Sendable>(statusCode acceptableStatusCodes: S) -> Self where S.Element == Int {
        // An array is told by its type, not cast: a dynamic cast (and another when the response
        // was checked) cost about half a microsecond per request (docs/Performance.md, "ninth session").
        guard S.self == [Int].self else { return adding(.statusCode(acceptableStatusCodes)) }
        let codes = unsafeBitCast(acceptableStatusCodes, to: [Int].self)
        return changingValidators { $0.append(statusCodes: codes) }
    }

    /// Accepts only the given MIME types (`*/*` and `type/*` wildcards; parameters after `;` ignored).
    /// Skipped when the body is empty; a missing `Content-Type` fails with `missingContentType`.
    public func validate<S: Sequence & Sendable>(contentType acceptableContentTypes: @escaping @autoclosure @Sendable () -> S) -> Self
    where S.Element == String {
        adding(.builtIn { _, response, data in
            ResponseValidator.contentType(response, data: data, acceptable: Array(acceptableContentTypes()))
        })
    }

    /// Accepts status codes 200..<300 and, when the request has an `Accept` header, only the
    /// content types it lists.
    public func validate() -> Self {
        adding(.builtIn { request, response, data in
            if case let .failure(error) = ResponseValidator.statusCode(response, acceptable: 200..<300) {
                return .failure(error)
            }
            return ResponseValidator.contentType(response, data: data,
                                                 acceptable: ResponseValidator.acceptableContentTypes(of: request))
        })
    }
}

/// The validation rules, as pure functions (unit-tested without a network).
enum ResponseValidator {
    static func statusCode<S: Sequence>(_ response: any ResponseFacts, acceptable: S) -> ValidationResult
    where S.Element == Int {
        if acceptable.contains(response.statusCode) { return .success }
        return .failure(CurlfireError.responseValidationFailed(reason: .unacceptableStatusCode(code: response.statusCode)))
    }

    /// `validate(statusCode:)`'s rule over the stored sequence. Arrays, ranges and sets are checked as
    /// themselves: `contains` through the opened existential ran unspecialized and allocated its
    /// iterator, once per response.
    static func statusCode(_ response: any ResponseFacts, acceptableCodes acceptable: any Sequence<Int> & Sendable)
        -> ValidationResult {
        let code = response.statusCode
        let accepted: Bool
        switch acceptable {
        case let codes as [Int]: accepted = codes.contains(code)
        case let codes as Range<Int>: accepted = codes.contains(code)
        case let codes as ClosedRange<Int>: accepted = codes.contains(code)
        case let codes as Set<Int>: accepted = codes.contains(code)
        default: return statusCode(response, acceptable: acceptable)
        }
        if accepted { return .success }
        return .failure(CurlfireError.responseValidationFailed(reason: .unacceptableStatusCode(code: code)))
    }

    static func contentType(_ response: any ResponseFacts, data: Data?, acceptable: [String]) -> ValidationResult {
        guard let data, !data.isEmpty else { return .success }
        return contentType(response, acceptable: acceptable)
    }

    static func contentType(_ response: any ResponseFacts, acceptable: [String]) -> ValidationResult {
        guard let responseType = MIMEType(response.headerValue("Content-Type") ?? "") else {
            if acceptable.contains(where: { MIMEType($0)?.isWildcardAll == true }) { return .success }
            return .failure(CurlfireError.responseValidationFailed(
                reason: .missingContentType(acceptableContentTypes: acceptable)))
        }
        for type in acceptable {
            if let acceptableType = MIMEType(type), acceptableType.matches(responseType) { return .success }
        }
        return .failure(CurlfireError.responseValidationFailed(
            reason: .unacceptableContentType(acceptableContentTypes: acceptable,
                                             responseContentType: responseType.description)))
    }

    /// The MIME types of the request's `Accept` header (quality parameters dropped), or `["*/*"]`.
    static func acceptableContentTypes(of request: URLRequest?) -> [String] {
        acceptableContentTypes(of: request.map(LazyRequest.built))
    }

    /// ``acceptableContentTypes(of:)`` for a request that may still be in its plain form (no headers).
    static func acceptableContentTypes(of request: LazyRequest?) -> [String] {
        guard let accept = request?.value(forHTTPHeaderField: "Accept"), !accept.isEmpty else { return ["*/*"] }
        return accept.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Runs `validators` in order; the first failure, as a ``CurlfireError``.
    static func run(_ validators: [DataValidator], request: LazyRequest?, response head: LazyResponse?,
                    data: Data?) -> CurlfireError? {
        run(DataValidators(validators), request: request, response: head, data: data)
    }

    /// Runs validators in order; the first failure, as a ``CurlfireError``.
    /// The response is built from its head only when there is a validator to read it.
    static func run(_ validators: DataValidators, request: LazyRequest?, response head: LazyResponse?,
                    data: Data?) -> CurlfireError? {
        guard !validators.isEmpty, let head, head.statusCode > 0 else { return nil }
        if let codes = validators.onlyStatusCodes {
            let code = head.statusCode
            return codes.contains(code) ? nil : .responseValidationFailed(reason: .unacceptableStatusCode(code: code))
        }
        for validator in validators {
            let result: ValidationResult
            switch validator {
            case let .builtIn(rule): result = rule(request, head, data)
            case let .statusCode(acceptable): result = statusCode(head, acceptableCodes: acceptable)
            case let .custom(closure):
                guard let response = head.response else { return nil }
                result = closure(request?.urlRequest, response, data)
            }
            if case let .failure(error) = result {
                return (error as? CurlfireError) ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
            }
        }
        return nil
    }
}

/// A MIME type `type/subtype`, parameters dropped, compared case-insensitively.
struct MIMEType: Equatable, CustomStringConvertible {
    let type: String
    let subtype: String

    init?(_ string: String) {
        let essence = string.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let parts = essence.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        type = String(parts[0])
        subtype = String(parts[1])
    }

    var isWildcardAll: Bool { type == "*" && subtype == "*" }

    /// Whether this (acceptable) type admits `other`: `*/*`, `type/*` or an exact match.
    func matches(_ other: MIMEType) -> Bool {
        (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
    }

    var description: String { "\(type)/\(subtype)" }
}
