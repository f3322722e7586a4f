// A flag that lets exactly one caller through, from any thread.
import Synchronization

/// Lets exactly one caller through: `if once.claim() { request.cancel() }` in a progress closure.
public final class Once: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// Creates an unclaimed flag.
    public init() {}

    /// `true` for the first caller only.
    public func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
