import Foundation

extension RetryPolicy {
    /// How a ``RetryPolicy`` spreads its delays, so that clients that failed together do not all
    /// retry together.
    public enum Jitter: Sendable, Hashable {
        /// "Full jitter": a delay drawn uniformly between 0 and the exponential backoff; after a
        /// `Retry-After`, the server's delay plus such a draw. The default.
        case full
        /// The exponential backoff exactly (or the server's `Retry-After` exactly).
        case none
    }
}
