import CRawCurl
import Foundation
import Synchronization

/// Monotonic time in nanoseconds: the same clock the C client and the cold-start stamp use.
@inline(__always) func nowNanoseconds() -> UInt64 { rawcurl_now_ns() }

/// How one request of a closed loop ended.
enum LoopResult: Sendable {
    case succeeded
    /// Succeeded, and opened this many new connections (handshake scenario).
    case succeededOnNewConnections(Int)
    case failed(String)

    init(failure: String?) { self = failure.map(LoopResult.failed) ?? .succeeded }
}

/// A timed window after a warm-up: a request counts when it completes inside the window, and the
/// process's CPU time is read at its two ends (`cpu`).
struct Window: Sendable {
    let start: UInt64
    let end: UInt64
    let seconds: Double
    /// The process's CPU time over exactly this window.
    let cpu: CPUWindow

    init(warmup: Double, seconds: Double) {
        let now = nowNanoseconds()
        start = now + UInt64(warmup * 1e9)
        end = start + UInt64(seconds * 1e9)
        self.seconds = seconds
        cpu = CPUWindow(start: start, end: end)
    }

    var isOpen: Bool { nowNanoseconds() < end }
}

/// Counts completions and failures of a closed-loop run, from any thread.
final class Tally: Sendable {
    let window: Window
    private let completed = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let connects = Atomic<Int>(0)
    private let firstFailure = Mutex<String?>(nil)

    init(window: Window) { self.window = window }

    /// Records one finished request.
    func record(_ result: LoopResult) {
        let newConnections: Int
        switch result {
        case let .failed(failure):
            failures.add(1, ordering: .relaxed)
            firstFailure.withLock { if $0 == nil { $0 = failure } }
            return
        case .succeeded: newConnections = 0
        case let .succeededOnNewConnections(count): newConnections = count
        }
        let now = nowNanoseconds()
        if now >= window.start, now <= window.end {
            completed.add(1, ordering: .relaxed)
            connects.add(newConnections, ordering: .relaxed)
        }
    }

    /// Whether the loop should stop: the window closed or too many failures.
    var shouldStop: Bool { !window.isOpen || failures.load(ordering: .relaxed) > 100 }

    func measurement(value: (Int, Double) -> Double, countsConnections: Bool = false) -> Measurement {
        let count = completed.load(ordering: .relaxed)
        let failed = failures.load(ordering: .relaxed)
        if failed > 0 {
            return .failed("\(failed) failed request(s): \(firstFailure.withLock { $0 ?? "?" })")
        }
        var measurement = Measurement(status: .ok, value: value(count, window.seconds), count: count,
                                      seconds: window.seconds,
                                      connects: countsConnections ? connects.load(ordering: .relaxed) : nil)
        window.cpu.fill(&measurement)
        return measurement
    }

    /// Requests per second.
    func rate(countsConnections: Bool = false) -> Measurement {
        measurement(value: { count, seconds in Double(count) / seconds }, countsConnections: countsConnections)
    }
}

/// Closed-loop load: `concurrency` workers, each starting its next request from the previous one's
/// completion handler, until the window closes. Returns once every worker has stopped.
func runCallbackLoop(concurrency: Int, tally: Tally,
                     issue: @escaping @Sendable (_ done: @escaping @Sendable (LoopResult) -> Void) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let remaining = Countdown(concurrency)
        let finish = ContinuationBox(continuation)
        // A worker is a chain of requests; it ends when the window closes.
        @Sendable func step() {
            issue { result in
                tally.record(result)
                if tally.shouldStop {
                    if remaining.decrement() == 0 { finish.resume() }
                } else {
                    step()
                }
            }
        }
        for _ in 0..<concurrency { step() }
    }
}

/// Closed-loop load with `concurrency` tasks awaiting one request at a time.
func runAsyncLoop(concurrency: Int, tally: Tally, operation: @escaping @Sendable () async -> LoopResult) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                repeat {
                    tally.record(await operation())
                } while !tally.shouldStop
            }
        }
    }
}

/// A shared counter that escaping closures can capture (`Atomic` itself is not copyable).
final class Countdown: Sendable {
    private let value: Atomic<Int>
    init(_ value: Int) { self.value = Atomic(value) }
    /// Decrements and returns the new value.
    func decrement() -> Int { value.subtract(1, ordering: .acquiringAndReleasing).newValue }
}

/// A continuation resumed at most once, from any thread.
final class ContinuationBox: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>
    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = Mutex(continuation) }
    func resume() { continuation.withLock { $0.take() }?.resume() }
}
