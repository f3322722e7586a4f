import Foundation
import FoundationNetworking

/// The session's monitors as one: each event is sent to every monitor on that monitor's queue.
///
/// Callers are never the engine thread's callbacks with user code: events are dispatched
/// asynchronously, so a slow monitor delays only its own queue.
final class CompositeEventMonitor: Sendable {
    let monitors: [any EventMonitor]

    init(monitors: [any EventMonitor]) {
        self.monitors = monitors
    }

    /// Whether any monitor is attached (events are skipped entirely when not).
    var isEmpty: Bool { monitors.isEmpty }

    /// Sends one event to every monitor, each on its own queue.
    func send(_ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for monitor in monitors {
            monitor.queue.async { event(monitor) }
        }
    }

    /// Sends a non-`Sendable` payload (a serialized response, handed over once and never shared).
    func send<Payload>(_ payload: Payload, _ event: @escaping @Sendable (any EventMonitor, Payload) -> Void) {
        let box = UncheckedSendable(value: payload)
        send { monitor in event(monitor, box.value) }
    }
}
