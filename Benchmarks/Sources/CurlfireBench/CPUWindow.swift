import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's CPU time (`getrusage(RUSAGE_SELF)`, user and system, every thread), context switches
/// and — with Benchmarks/AllocCounter preloaded — heap allocations over one timed
/// window: a thread of its own sleeps until the window opens (`clock_nanosleep`, absolute
/// CLOCK_MONOTONIC, the clock of every window), reads the usage, sleeps until it closes and reads it
/// again. So the warm-up, the set-up and the tear-down are excluded, and the CPU time covers the
/// same interval as the requests counted. The sleeping thread itself costs nothing measurable.
final class CPUWindow: Sendable {
    private struct Reading {
        var user: Double
        var system: Double
        /// Voluntary and involuntary context switches of the process (every thread).
        var switches: Int
        /// Heap allocations of the process, when the counting shim is preloaded (`nil` otherwise).
        var allocations: Int?
    }

    /// `curlfire_bench_allocations` of Benchmarks/AllocCounter when it is preloaded (scripts/bench.sh).
    private static let allocationCounter: (@convention(c) () -> Int)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "curlfire_bench_allocations") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> Int).self)
    }()

    private let readings = Mutex<(start: Reading?, end: Reading?)>((nil, nil))
    private let finished = DispatchSemaphore(value: 0)
    private let end: UInt64

    init(start: UInt64, end: UInt64) {
        self.end = end
        let thread = Thread { [self] in
            Self.sleep(until: start)
            let first = Self.read()
            readings.withLock { $0.start = first }
            Self.sleep(until: end)
            let last = Self.read()
            readings.withLock { $0.end = last }
            finished.signal()
        }
        thread.name = "cpu-window"
        thread.start()
    }

    /// User and system CPU seconds over the window; waits until the window has closed. `nil` when
    /// the window did not close within a few seconds of its end (it always does).
    func seconds() -> (user: Double, system: Double, switches: Int, allocations: Int?)? {
        let now = nowNanoseconds()
        let wait = (end > now ? end - now : 0) + 5_000_000_000
        guard finished.wait(timeout: .now() + .nanoseconds(Int(wait))) == .success else { return nil }
        finished.signal() // a second call finds it signalled too
        return readings.withLock { readings in
            guard let start = readings.start, let end = readings.end else { return nil }
            return (end.user - start.user, end.system - start.system, end.switches - start.switches,
                    end.allocations.flatMap { last in start.allocations.map { last - $0 } })
        }
    }

    /// Writes the window's CPU time into `measurement`.
    func fill(_ measurement: inout Measurement) {
        guard let (user, system, switches, allocations) = seconds() else { return }
        measurement.userCPUSeconds = user
        measurement.systemCPUSeconds = system
        measurement.contextSwitches = switches
        measurement.allocations = allocations
    }

    private static func read() -> Reading {
        var usage = rusage()
        let allocations = allocationCounter?()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Reading(user: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                       system: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
                       switches: usage.ru_nvcsw + usage.ru_nivcsw, allocations: allocations)
    }

    private static func sleep(until nanoseconds: UInt64) {
        var deadline = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}
