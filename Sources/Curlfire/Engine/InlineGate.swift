import Foundation
import Synchronization

/// Which thread runs a batch of handlers now, so that the requests those handlers start are not sent
/// inline one by one (docs/Architecture.md, "Inline driving").
///
/// A handler that starts a request while the engine sleeps idle sends it itself (Engine.driveInline).
/// In a batch of several handlers (one engine turn released them together, SerialQueueDrain.swift),
/// the first would send its request inline and every later one would then wake the engine anyway:
/// the batch's queue does the engine's work beside it. So while a batch runs its handlers but the
/// last, their requests go to the engine as commands, and only the last may send inline.
final class InlineGate: Sendable {
    /// The thread (`pthread_self()`) running a batch's handlers but its last; 0 when none.
    private let holder = Atomic<UInt>(0)

    /// The calling thread starts the handlers of a batch that has more after them. One thread at a
    /// time holds the gate: a second queue's batch meanwhile is not held back.
    func enterBatch() {
        _ = holder.compareExchange(expected: 0, desired: UInt(pthread_self()), ordering: .relaxed)
    }

    /// The calling thread reaches the batch's last handler (or the batch ends).
    func leaveBatch() {
        _ = holder.compareExchange(expected: UInt(pthread_self()), desired: 0, ordering: .relaxed)
    }

    /// Whether the calling thread runs a batch's handlers but its last.
    var holdsCaller: Bool { holder.load(ordering: .relaxed) == UInt(pthread_self()) }
}
