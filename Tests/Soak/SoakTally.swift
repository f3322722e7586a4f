import Foundation

/// The outcome of one soak operation.
struct SoakOutcome: Sendable {
    /// The operation's kind (`small-get`, `timeout`, …).
    let kind: String
    /// Whether the outcome is what the operation expects (a success, or the failure it provokes).
    let expected: Bool
    /// What happened, for the report of unexpected outcomes.
    let detail: String

    static func ok(_ kind: String) -> SoakOutcome { SoakOutcome(kind: kind, expected: true, detail: "") }
    static func unexpected(_ kind: String, _ detail: String) -> SoakOutcome {
        SoakOutcome(kind: kind, expected: false, detail: detail)
    }
    /// Expected when `condition` holds, else unexpected with `detail`.
    static func check(_ kind: String, _ condition: Bool, _ detail: @autoclosure () -> String) -> SoakOutcome {
        condition ? .ok(kind) : .unexpected(kind, detail())
    }
}

/// Counts outcomes by kind, thread-safely, and keeps the first unexpected ones.
final class SoakTally: Sendable {
    private struct State {
        var expected: [String: Int] = [:]
        var unexpected: [String: Int] = [:]
        var examples: [String] = []
    }
    private let state = Locked(State())

    func record(_ outcome: SoakOutcome) {
        state.withLock { state in
            if outcome.expected {
                state.expected[outcome.kind, default: 0] += 1
            } else {
                state.unexpected[outcome.kind, default: 0] += 1
                if state.examples.count < 20 { state.examples.append("\(outcome.kind): \(outcome.detail)") }
            }
        }
    }

    var total: Int { state.withLock { $0.expected.values.reduce(0, +) + $0.unexpected.values.reduce(0, +) } }
    var unexpectedCount: Int { state.withLock { $0.unexpected.values.reduce(0, +) } }
    var examples: [String] { state.withLock { $0.examples } }

    /// One line per kind: `small-get  12345 expected  0 unexpected`.
    var table: String {
        state.withLock { state in
            Set(state.expected.keys).union(state.unexpected.keys).sorted().map { kind in
                let expected = state.expected[kind, default: 0], unexpected = state.unexpected[kind, default: 0]
                return "  \(kind.padding(toLength: 24, withPad: " ", startingAt: 0)) \(String(expected).leftPadded(8)) expected"
                    + " \(String(unexpected).leftPadded(6)) unexpected"
            }.joined(separator: "\n")
        }
    }
}

/// A value behind an `NSLock` (which ThreadSanitizer understands, unlike `Synchronization.Mutex`).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
