import Foundation
import Synchronization

/// The session's transfers that started, have not finished, and wait outside the engine — for an
/// adapter, a retrier, a retry delay, a redirect handler or a flight of identical requests — held
/// weakly: a transfer joins at its first such wait (``Transfer/parkOutsideEngine()``) and leaves
/// when it has delivered its outcome. A request that never waits outside the engine (every request
/// of a session with no adapter, retrier or redirect handler) never joins it: the engine reaches
/// those (``SessionManager/cancelAllRequests(completingOnQueue:completion:)``). One lock, one
/// dictionary keyed by `ObjectIdentifier` (`@unchecked Sendable`: the dictionary is only touched
/// under that lock).
final class LiveTransfers: @unchecked Sendable {
    private struct Entry { weak var transfer: Transfer? }

    private let lock = Lock.make()
    private var entries: [ObjectIdentifier: Entry] = [:]

    func insert(_ transfer: Transfer) {
        lock.withLock { entries[ObjectIdentifier(transfer)] = Entry(transfer: transfer) }
    }

    func remove(_ transfer: Transfer) {
        lock.withLock { _ = entries.removeValue(forKey: ObjectIdentifier(transfer)) }
    }

    /// The registered transfers now.
    var all: [Transfer] { lock.withLock { entries.values.compactMap(\.transfer) } }
}

extension SessionManager {
    /// Cancels every request of the session that has started and not finished, as Alamofire 5's
    /// `cancelAllRequests`: their handlers get ``CurlfireError/explicitlyCancelled``. Requests
    /// started later are not affected; requests not yet started are not cancelled. As in Alamofire
    /// 5, the cancels are issued asynchronously: a request that finishes meanwhile keeps its outcome.
    ///
    /// - Parameters:
    ///   - queue:      Where `completion` runs. `nil` by default: the session's ``callbackQueue``.
    ///   - completion: Called once, after every cancel has been issued. `nil` by default.
    public func cancelAllRequests(completingOnQueue queue: DispatchQueue? = nil,
                                  completion: (@Sendable () -> Void)? = nil) {
        // Every transfer that started before this call recorded an epoch below `epoch`. Those the
        // engine runs, or is handed later, it cancels itself; those waiting outside it are in the
        // registry, swept here first — or, joining it after this sweep, see the new epoch as they join.
        let epoch = cancelEpoch.add(1, ordering: .sequentiallyConsistent).newValue
        for transfer in liveTransfers.all where transfer.startedBefore(epoch) {
            transfer.cancel()
        }
        let completionQueue = queue ?? callbackQueue
        let handed = engine.enqueue(.cancelStarted(before: epoch) { running in
            // Off the engine thread: a cancel runs event monitors and notification observers.
            DispatchQueue.global().async {
                for transfer in running { transfer.cancel() }
                if let completion { completionQueue.async(execute: completion) }
            }
        })
        if !handed, let completion { completionQueue.async(execute: completion) } // engine gone: nothing runs
    }
}
