import Foundation
import FoundationNetworking

/// Retries a request that failed because the network is down, once it is back — Alamofire 5.11's
/// `OfflineRetrier`, on Linux's netlink ``NetworkReachabilityManager``.
///
/// When an attempt fails below HTTP (cannot connect, cannot resolve the host, connection lost,
/// timed out) and the request's host is not reachable at that moment — no route leads to it
/// through an interface that is up — the retrier watches the host's reachability and retries as
/// soon as a route is back, or gives up after `maximumWait` seconds (the request then ends with its
/// own error). A failure while the network is up (the server is down, say) is left to the other
/// retriers. At most `retryLimit` retries are made this way.
///
/// ```swift
/// let session = SessionManager(interceptor: Interceptor(interceptors: [OfflineRetrier(maximumWait: 30), RetryPolicy()]))
/// ```
public struct OfflineRetrier: RequestInterceptor {
    /// Transport causes that may mean the network is down.
    public static let offlineTransportErrorCodes: Set<TransportErrorCode> = [
        .cannotConnect, .cannotResolveHost, .connectionLost, .timedOut,
    ]

    /// The longest wait for the network, in seconds.
    public let maximumWait: TimeInterval
    /// The most retries this retrier makes for one request.
    public let retryLimit: Int

    /// Creates the retrier. A negative or NaN wait counts as 0 (do not wait).
    ///
    /// - Parameters:
    ///   - maximumWait: The longest wait for the network, in seconds. `30` by default.
    ///   - retryLimit:  The most retries for one request. `3` by default.
    public init(maximumWait: TimeInterval = 30, retryLimit: Int = 3) {
        self.maximumWait = maximumWait.isNaN ? 0 : max(0, maximumWait)
        self.retryLimit = max(0, retryLimit)
    }

    /// Waits for the network when the attempt failed because it is down; otherwise does not retry.
    public func retry(_ request: any Request, for session: SessionManager, dueTo error: Error,
                      completion: @escaping @Sendable (RetryResult) -> Void) {
        guard request.retryCount < retryLimit,
              let code = (error as? CurlfireError)?.transportErrorCode, Self.offlineTransportErrorCodes.contains(code),
              let host = request.request?.url?.host, let manager = NetworkReachabilityManager(host: host),
              !manager.isReachable
        else { return completion(.doNotRetry) }
        Self.wait(with: manager, upTo: maximumWait, completion: completion)
    }

    /// The Alamofire 4 form of ``retry(_:for:dueTo:completion:)``.
    public func should(_ manager: SessionManager, retry request: any Request, with error: Error,
                       completion: @escaping @Sendable (_ shouldRetry: Bool, _ timeDelay: TimeInterval) -> Void) {
        retry(request, for: manager, dueTo: error) { completion($0.retryRequired, 0) }
    }

    /// Listens to `manager` until it reports a route or `maximumWait` passes; calls `completion` once.
    private static func wait(with manager: NetworkReachabilityManager, upTo maximumWait: TimeInterval,
                             completion: @escaping @Sendable (RetryResult) -> Void) {
        OfflineWaiter(manager: manager, completion: completion).start(maximumWait: maximumWait)
    }
}

/// One wait for the network: the reachability listener and a timer feed an ``OfflineWait``; the
/// first decision stops both and calls the completion. The listener and the timer hold the waiter
/// until then (both are cleared at the decision, which the timer guarantees).
private final class OfflineWaiter: @unchecked Sendable { // `wait` is a LockedValue; `manager` and `timer` are lets
    private let manager: NetworkReachabilityManager
    private let timer = DispatchSource.makeTimerSource(queue: .global())
    private let completion: @Sendable (RetryResult) -> Void
    private let wait = LockedValue(OfflineWait())

    init(manager: NetworkReachabilityManager, completion: @escaping @Sendable (RetryResult) -> Void) {
        self.manager = manager
        self.completion = completion
    }

    func start(maximumWait: TimeInterval) {
        manager.listener = { status in
            if case .reachable = status { self.decide { $0.networkChanged(reachable: true) } }
        }
        timer.schedule(deadline: .now() + maximumWait)
        timer.setEventHandler { self.decide { $0.deadlinePassed() } }
        timer.resume()
        if !manager.startListening() { decide { $0.listeningFailed() } }
    }

    private func decide(_ event: (inout OfflineWait) -> OfflineWait.Decision?) {
        guard let decision = wait.withLock(event) else { return }
        manager.listener = nil
        manager.stopListening()
        timer.setEventHandler(handler: nil)
        timer.cancel()
        completion(decision == .retry ? .retry : .doNotRetry)
    }
}
