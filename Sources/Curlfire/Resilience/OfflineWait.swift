import Foundation

/// One wait of an ``OfflineRetrier`` as a value: the network coming back, the maximum wait passing
/// and the listener failing to start are events; the first one that decides wins and later ones
/// decide nothing. Tested as a table in `OfflineWaitTests`.
struct OfflineWait: Equatable, Sendable {
    /// What the wait decided.
    enum Decision: Equatable, Sendable {
        /// The network is back: retry now.
        case retry
        /// The maximum wait passed, or the network cannot be watched: do not retry.
        case giveUp
    }

    private(set) var decided: Decision?

    /// The reachability listener reported a status; `reachable` when a route leads out.
    mutating func networkChanged(reachable: Bool) -> Decision? {
        guard decided == nil, reachable else { return nil }
        decided = .retry
        return .retry
    }

    /// The maximum wait passed.
    mutating func deadlinePassed() -> Decision? {
        guard decided == nil else { return nil }
        decided = .giveUp
        return .giveUp
    }

    /// The netlink listener could not start.
    mutating func listeningFailed() -> Decision? {
        deadlinePassed()
    }
}
