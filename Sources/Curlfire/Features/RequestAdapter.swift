import Foundation
import FoundationNetworking

/// Adapts a `URLRequest` before each attempt is sent — adding a token, rewriting a host — as in
/// Alamofire 4. Runs off the engine thread, once per attempt (again on every retry).
public protocol RequestAdapter: Sendable {
    /// Returns the request to send. A thrown error fails the request with
    /// ``CurlfireError/requestAdaptationFailed(error:)`` (a thrown ``CurlfireError`` is kept as is).
    func adapt(_ urlRequest: URLRequest) throws -> URLRequest

    /// Adapts `urlRequest` and calls `completion` exactly once, on any thread: the form the engine
    /// calls. The default implementation runs ``adapt(_:)``.
    func adapt(_ urlRequest: URLRequest, for session: SessionManager,
               completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void)

    /// Adapts `urlRequest`, an attempt of `request`, and calls `completion` exactly once, on any
    /// thread. This is the form the engine calls; the default runs
    /// ``adapt(_:for:completion:)``. Implement it for an adapter that needs to know which request it
    /// adapts — to find what an ``EventMonitor`` keeps for it under ``Request/id``, say.
    func adapt(_ urlRequest: URLRequest, for request: any Request, session: SessionManager,
               completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void)
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

extension RequestAdapter {
    /// Adapts `urlRequest` and calls `completion` exactly once, on any thread. The engine calls
    /// this form; the default runs ``adapt(_:)``. Implement it for an adapter that must wait (for
    /// a token refresh, say); a failure fails the request with
    /// ``CurlfireError/requestAdaptationFailed(error:)``.
    public func adapt(_ urlRequest: URLRequest, for session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        completion(Result { try adapt(urlRequest) })
    }

    /// Runs ``adapt(_:for:completion:)``: most adapters do not need the request.
    public func adapt(_ urlRequest: URLRequest, for request: any Request, session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        adapt(urlRequest, for: session, completion: completion)
    }
}

/// A ``RequestAdapter`` from an `async` closure, for adapters that must wait (a keychain, a token
/// service). The closure runs in a new unstructured task for every attempt.
public struct AsyncAdapter: RequestAdapter {
    private let closure: @Sendable (URLRequest) async throws -> URLRequest

    /// Creates an adapter that runs `closure` before every attempt.
    public init(_ closure: @escaping @Sendable (URLRequest) async throws -> URLRequest) {
        self.closure = closure
    }

    /// Cannot wait synchronously: always throws ``AsyncAdapterError/requiresAsynchronousAdaptation``.
    /// The engine uses ``adapt(_:for:completion:)``.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        throw AsyncAdapterError.requiresAsynchronousAdaptation
    }

    /// Runs the closure in a task and reports its result.
    public func adapt(_ urlRequest: URLRequest, for session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        let closure = closure
        Task {
            do { completion(.success(try await closure(urlRequest))) } catch { completion(.failure(error)) }
        }
    }
}

/// Why an ``AsyncAdapter`` refused to adapt.
public enum AsyncAdapterError: Error, Sendable {
    /// ``AsyncAdapter/adapt(_:)`` was called directly: it cannot wait for its closure.
    case requiresAsynchronousAdaptation
}
