import Foundation
import FoundationNetworking

/// Adapts a `URLRequest` before each attempt is sent — adding a token, rewriting a host — as in
/// Alamofire 4. Runs off the engine thread, once per attempt (again on every retry).
public protocol RequestAdapter: Sendable {
    /// Returns the request to send. A thrown error fails the request with
    /// ``CurlfireError/requestAdaptationFailed(error:)`` (a thrown ``CurlfireError`` is kept as is).
    func adapt(_ urlRequest: URLRequest) throws -> URLRequest
}

/// A ``RequestAdapter`` from a closure.
public struct Adapter: RequestAdapter {
    private let closure: @Sendable (URLRequest) throws -> URLRequest

    /// Creates an adapter that runs `closure` on every attempt.
    public init(_ closure: @escaping @Sendable (URLRequest) throws -> URLRequest) {
        self.closure = closure
    }

    /// Runs the closure.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest { try closure(urlRequest) }
}
