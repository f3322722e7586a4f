import Foundation
import FoundationNetworking

/// Refuses a `GET` request that carries a body, unless the caller opted in.
///
/// A request counts as `GET` when its method is `GET` (any case) or unset. It carries a body when
/// `httpBody` is non-empty or `httpBodyStream` is set. Called by the session before a request is
/// handed to the engine.
///
/// - Parameters:
///   - request: The request about to be sent.
///   - allowed: Whether the caller explicitly allowed a body in a `GET` request.
/// - Throws:    ``CurlfireError/bodyDataInGETRequest`` when the request is a `GET` with a body and
///              `allowed` is `false`.
func rejectsBodyInGET(_ request: URLRequest, allowed: Bool) throws {
    guard !allowed else { return }
    let method = request.httpMethod?.uppercased() ?? HTTPMethod.get.rawValue
    guard method == HTTPMethod.get.rawValue else { return }
    let hasBody = !(request.httpBody?.isEmpty ?? true) || request.httpBodyStream != nil
    if hasBody { throw CurlfireError.bodyDataInGETRequest }
}
