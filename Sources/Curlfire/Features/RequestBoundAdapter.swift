import Foundation
import FoundationNetworking

/// The transfer a request's adapters belong to, set once right after the transfer is made.
/// Weak: the transfer's definition holds the adapters, which hold this.
/// `@unchecked Sendable`: its one mutable field, the weak transfer, is read and written only under `lock`.
final class AdapterBinding: @unchecked Sendable {
    private let lock = Lock.make()
    private weak var transfer: Transfer?

    func bind(_ transfer: Transfer) { lock.withLock { self.transfer = transfer } }

    var request: (any Request)? { lock.withLock { transfer }?.requestValue }
}

/// Wraps each of a transfer's adapters so the engine's call, which knows only the session, reaches
/// ``RequestAdapter/adapt(_:for:session:completion:)`` with the request being adapted.
struct RequestBoundAdapter: RequestAdapter {
    let binding: AdapterBinding
    let base: any RequestAdapter

    /// Binds `adapter` (unwrapped first if it was bound to an earlier transfer, as in a definition copied
    /// by a modifier) to `binding`.
    init(binding: AdapterBinding, adapter: any RequestAdapter) {
        self.binding = binding
        base = (adapter as? RequestBoundAdapter)?.base ?? adapter
    }

    func adapt(_ urlRequest: URLRequest) throws -> URLRequest { try base.adapt(urlRequest) }

    func adapt(_ urlRequest: URLRequest, for session: SessionManager,
               completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        guard let request = binding.request else {
            return base.adapt(urlRequest, for: session, completion: completion)
        }
        base.adapt(urlRequest, for: request, session: session, completion: completion)
    }
}
