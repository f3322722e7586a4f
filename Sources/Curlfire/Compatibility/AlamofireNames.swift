import Foundation

// Alamofire 4 names that Alamofire 4 code spells and Curlfire calls otherwise (issue 30 point 6).

/// Alamofire 4's name for ``CurlfireError``: `AFError` code (`catch let error as AFError`,
/// `error as? AFError`, `.responseValidationFailed(reason:)`) compiles unchanged.
public typealias AFError = CurlfireError

/// Alamofire 4's completion of ``RequestRetrier/should(_:retry:with:completion:)``: whether to
/// retry, and after how many seconds. `@Sendable`, as every closure Curlfire keeps.
public typealias RequestRetryCompletion = @Sendable (_ shouldRetry: Bool, _ timeDelay: TimeInterval) -> Void
