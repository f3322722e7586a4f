import Foundation

/// The verdicts of handshakes in progress, keyed by handshake: why each rejected handshake was rejected.
///
/// One bridge serves every connection to its host, and several handshakes may run before the engine
/// reads any result, so a single "last failure" would report one request's reason for another. Keys are
/// opaque numbers (the bits of the `CURL *` easy handle making the connection), never dereferenced.
///
/// Thread-safe: OpenSSL callbacks record, the engine takes; the records are only touched under its
/// lock (hence `@unchecked Sendable`).
final class HandshakeFailureRecord: @unchecked Sendable {
    /// The rejection reason type.
    typealias Reason = CurlfireError.ServerTrustFailureReason

    private let lock = Lock.make()
    private var reasons: [UInt: Reason] = [:]

    /// Creates an empty record.
    init() {}

    /// Records the verdict of one step of a handshake: a reason replaces any earlier one, `nil` (the step
    /// accepted the server) removes it.
    ///
    /// - Parameters:
    ///   - reason:    why the handshake was rejected, or `nil` when this step accepted it.
    ///   - handshake: the handshake's key.
    func record(_ reason: Reason?, forHandshake handshake: UInt) {
        lock.lock()
        defer { lock.unlock() }
        reasons[handshake] = reason
    }

    /// Why the most recent handshake with this key was rejected, removing the record; `nil` if none.
    ///
    /// - Parameter handshake: the handshake's key.
    /// - Returns: the recorded reason, if any.
    func take(forHandshake handshake: UInt) -> Reason? {
        lock.lock()
        defer { lock.unlock() }
        return reasons.removeValue(forKey: handshake)
    }

    /// How many handshakes have a recorded reason (for tests: nothing stale may remain).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return reasons.count
    }
}
