import Foundation

/// One host's retry budget as a value (Finagle's `RetryBudget`): over the last `window` seconds, at
/// most `minimumPerSecond × window + ratio × requests` retries. Time is in slots of a tenth of the
/// window; a slot older than the window no longer counts.
///
/// Events: ``deposit(at:)`` (a request was sent) and ``withdraw(at:)`` (a retry wants to go),
/// which answers whether it may. Tested as a table in `RetryBudgetStateTests`.
struct RetryBudgetState: Equatable, Sendable {
    /// Retries a request earns (0.2: one retry for five requests).
    let ratio: Double
    /// Retries allowed per second with no requests at all.
    let minimumPerSecond: Int
    /// The span the budget covers, in seconds.
    let window: TimeInterval

    static let slotCount = 10
    private var slotIndex = [Int64](repeating: .min, count: slotCount)
    private var deposits = [Int](repeating: 0, count: slotCount)
    private var withdrawals = [Int](repeating: 0, count: slotCount)

    /// Lifetime counts, for reports.
    private(set) var requests = 0
    private(set) var retriesGranted = 0
    private(set) var retriesRefused = 0

    init(ratio: Double, minimumPerSecond: Int, window: TimeInterval) {
        self.ratio = ratio
        self.minimumPerSecond = minimumPerSecond
        self.window = window
    }

    /// The retries left at `now` (seconds on a monotonic clock).
    func balance(at now: TimeInterval) -> Double {
        let current = slot(of: now)
        var earned = 0, spent = 0
        for index in 0..<Self.slotCount where slotIndex[index] > current - Int64(Self.slotCount) {
            earned += deposits[index]
            spent += withdrawals[index]
        }
        return Double(minimumPerSecond) * window + ratio * Double(earned) - Double(spent)
    }

    /// A request was sent at `now`: it earns `ratio` retries for the window.
    mutating func deposit(at now: TimeInterval) {
        let index = advance(to: now)
        deposits[index] += 1
        requests += 1
    }

    /// A retry wants to go at `now`: spends one retry and returns `true` when the balance has one,
    /// else returns `false` and changes nothing but the refusal count.
    mutating func withdraw(at now: TimeInterval) -> Bool {
        guard balance(at: now) >= 1 else {
            retriesRefused += 1
            return false
        }
        let index = advance(to: now)
        withdrawals[index] += 1
        retriesGranted += 1
        return true
    }

    private func slot(of now: TimeInterval) -> Int64 {
        let width = window / Double(Self.slotCount)
        let value = (now / width).rounded(.down)
        return value.isFinite ? Int64(max(min(value, 9e15), -9e15)) : 0
    }

    /// The ring index for `now`'s slot, cleared when it last held an older slot.
    private mutating func advance(to now: TimeInterval) -> Int {
        let current = slot(of: now)
        let index = Int(((current % Int64(Self.slotCount)) + Int64(Self.slotCount)) % Int64(Self.slotCount))
        if slotIndex[index] != current {
            slotIndex[index] = current
            deposits[index] = 0
            withdrawals[index] = 0
        }
        return index
    }
}
