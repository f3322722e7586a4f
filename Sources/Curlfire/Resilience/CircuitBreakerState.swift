import Foundation

/// One host's circuit breaker as a value: events in (``admit(at:)``, ``record(_:at:)``), the
/// decision and any change of state out. Tested as a table in `CircuitBreakerStateTests`.
///
/// Closed, it admits every request and keeps the last `windowSize` outcomes; when the window is
/// full and the share of failures in it reaches `failureRateThreshold`, it opens. Open, it rejects
/// every request until `openDuration` has passed; the next request then finds it half-open. Half-
/// open, it admits at most `halfOpenProbes` requests at a time: a failed probe opens it again, and
/// `halfOpenProbes` successful probes close it with an empty window. A probe that never reports
/// (its request ended before an attempt) frees its place after `openDuration`.
struct CircuitBreakerState: Equatable, Sendable {
    /// Where the breaker is.
    enum Phase: Equatable, Sendable {
        case closed
        case open(until: TimeInterval)
        case halfOpen
    }

    /// What the breaker does with a request.
    enum Admission: Equatable, Sendable {
        /// Send it (closed).
        case allow
        /// Send it as one of the half-open probes.
        case allowProbe
        /// Fail it without sending.
        case reject
    }

    /// How an admitted request's attempt ended.
    enum Outcome: Equatable, Sendable {
        case success
        case failure
        /// Cancelled: says nothing about the host, but frees a probe's place.
        case neutral
    }

    let failureRateThreshold: Double
    let windowSize: Int
    let openDuration: TimeInterval
    let halfOpenProbes: Int

    private(set) var phase: Phase = .closed
    /// The last outcomes while closed (true: failure), a ring of `windowSize`.
    private var window: [Bool] = []
    private var nextSlot = 0
    private var failures = 0
    private(set) var probesInFlight = 0
    private var probeSuccesses = 0
    private var lastProbeAdmitted: TimeInterval = 0

    init(failureRateThreshold: Double, windowSize: Int, openDuration: TimeInterval, halfOpenProbes: Int) {
        self.failureRateThreshold = failureRateThreshold
        self.windowSize = windowSize
        self.openDuration = openDuration
        self.halfOpenProbes = halfOpenProbes
    }

    /// The public state.
    var state: CircuitBreaker.State {
        switch phase {
        case .closed: return .closed
        case .open: return .open
        case .halfOpen: return .halfOpen
        }
    }

    /// A request wants to go at `now`: what to do, and the new state if it changed.
    mutating func admit(at now: TimeInterval) -> (Admission, changedTo: CircuitBreaker.State?) {
        switch phase {
        case .closed:
            return (.allow, nil)
        case let .open(until):
            guard now >= until else { return (.reject, nil) }
            phase = .halfOpen
            probesInFlight = 0
            probeSuccesses = 0
            return (admitProbe(at: now), .halfOpen)
        case .halfOpen:
            return (admitProbe(at: now), nil)
        }
    }

    private mutating func admitProbe(at now: TimeInterval) -> Admission {
        if probesInFlight >= halfOpenProbes, now - lastProbeAdmitted >= openDuration {
            probesInFlight = 0 // probes that never reported
        }
        guard probesInFlight < halfOpenProbes else { return .reject }
        probesInFlight += 1
        lastProbeAdmitted = now
        return .allowProbe
    }

    /// An attempt of an admitted request ended at `now`; the new state if it changed.
    mutating func record(_ outcome: Outcome, at now: TimeInterval) -> CircuitBreaker.State? {
        switch phase {
        case .open:
            return nil // a request admitted before the breaker opened
        case .closed:
            guard outcome != .neutral else { return nil }
            push(outcome == .failure)
            guard window.count == windowSize, Double(failures) >= failureRateThreshold * Double(windowSize) else {
                return nil
            }
            open(at: now)
            return .open
        case .halfOpen:
            guard probesInFlight > 0 else { return nil } // a request admitted while closed
            probesInFlight -= 1
            switch outcome {
            case .neutral:
                return nil
            case .failure:
                open(at: now)
                return .open
            case .success:
                probeSuccesses += 1
                guard probeSuccesses >= halfOpenProbes else { return nil }
                phase = .closed
                clearWindow()
                return .closed
            }
        }
    }

    private mutating func open(at now: TimeInterval) {
        phase = .open(until: now + openDuration)
        clearWindow()
        probesInFlight = 0
        probeSuccesses = 0
    }

    private mutating func push(_ failed: Bool) {
        if window.count < windowSize {
            window.append(failed)
        } else {
            if window[nextSlot] { failures -= 1 }
            window[nextSlot] = failed
        }
        if failed { failures += 1 }
        nextSlot = (nextSlot + 1) % windowSize
    }

    private mutating func clearWindow() {
        window.removeAll(keepingCapacity: true)
        nextSlot = 0
        failures = 0
    }
}
