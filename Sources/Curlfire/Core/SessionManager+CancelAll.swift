import Foundation

/// The transfers of a session that have started and not finished, held weakly: a transfer
/// registers when it starts and leaves when it has delivered its outcome. One lock, one
/// dictionary keyed by `ObjectIdentifier` — a few nanoseconds per request (`@unchecked Sendable`:
/// the dictionary is only touched under that lock).
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

    /// The live transfers now.
    var all: [Transfer] { lock.withLock { entries.values.compactMap(\.transfer) } }
}

extension SessionManager {
    /// Cancels every request of the session that has started and not finished, as Alamofire 5's
    /// `cancelAllRequests`: their handlers get ``CurlfireError/explicitlyCancelled``. Requests
    /// created later are not affected; requests not yet started are not cancelled.
    ///
    /// - Parameters:
    ///   - queue:      Where `completion` runs. `nil` by default: the session's ``callbackQueue``.
    ///   - completion: Called once, after every cancel has been issued. `nil` by default.
    public func cancelAllRequests(completingOnQueue queue: DispatchQueue? = nil,
                                  completion: (@Sendable () -> Void)? = nil) {
        for transfer in liveTransfers.all { transfer.cancel() }
        if let completion { (queue ?? callbackQueue).async(execute: completion) }
    }
}
