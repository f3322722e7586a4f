import Foundation
import FoundationNetworking

/// Gives `POST` and `PATCH` requests an `Idempotency-Key` header
/// (draft-ietf-httpapi-idempotency-key-header), so a server can recognise a request it already
/// processed and a ``RetryPolicy`` may retry them.
///
/// The key is derived from ``Request/id``: it is the same on every retry of the request and on
/// every redirect hop that keeps the method, and differs between requests. A request that already
/// has the header keeps its own. Other methods are left alone. Give it as an adapter or an
/// interceptor; put it before a ``RetryPolicy`` in an ``Interceptor``:
///
/// ```swift
/// let session = SessionManager(interceptor: Interceptor(adapters: [IdempotencyKeyAdapter()],
///                                                       retriers: [RetryPolicy()]))
/// ```
public struct IdempotencyKeyAdapter: RequestAdapter {
    /// `Idempotency-Key`.
    public static let headerName = "Idempotency-Key"
    /// The methods given a key: `POST` and `PATCH`.
    public static let methods: Set<HTTPMethod> = [.post, .patch]

    /// Creates the adapter.
    public init() {}

    /// Adds a random key: the form used without a request to tie the key to. The engine calls
    /// ``adapt(_:for:session:completion:)``, whose key stays the same across retries.
    public func adapt(_ urlRequest: URLRequest) throws -> URLRequest {
        Self.keyed(urlRequest, key: UUID())
    }

    /// Adds the key of `request` (from its ``Request/id``) when `urlRequest` is a `POST` or `PATCH`
    /// without one.
    public func adapt(_ urlRequest: URLRequest, for request: any Request, session: SessionManager,
                      completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        completion(.success(Self.keyed(urlRequest, key: request.id)))
    }

    /// `urlRequest` with the key for `key` when it needs one; a structured-field string, quoted.
    static func keyed(_ urlRequest: URLRequest, key: UUID) -> URLRequest {
        guard let method = urlRequest.method, methods.contains(method),
              urlRequest.value(forHTTPHeaderField: headerName) == nil else { return urlRequest }
        var keyed = urlRequest
        keyed.setValue("\"\(key.uuidString.lowercased())\"", forHTTPHeaderField: headerName)
        return keyed
    }
}
