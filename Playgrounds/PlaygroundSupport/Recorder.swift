// A list that any thread can append to.
import Synchronization

/// Collects values from callbacks on any thread: progress reports, attempts, tokens.
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Appends `value`.
    public func append(_ value: Element) { storage.withLock { $0.append(value) } }

    /// Everything appended so far, in order.
    public var all: [Element] { storage.withLock { $0 } }
}
