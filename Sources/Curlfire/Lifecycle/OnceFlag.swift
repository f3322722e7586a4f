import Foundation

/// Lets a completion closure run its effect once, however often it is called
/// (`@unchecked Sendable`: its one flag is read and written under its lock).
final class OnceFlag: @unchecked Sendable {
    private let lock = Lock.make()
    private var claimed = false

    /// `true` the first time only.
    func claim() -> Bool {
        lock.withLock {
            if claimed { return false }
            claimed = true
            return true
        }
    }
}
