import Foundation
import FoundationNetworking

/// The session's monitors as one: each event is sent to every monitor on that monitor's queue,
/// and the `Notification.Name.Task` notifications are posted from one serial queue.
///
/// Events are dispatched asynchronously (user code never runs on the engine thread), so a slow
/// monitor delays only its own queue. With no monitor attached only the four notifications cost
/// anything: one dispatch each.
final class CompositeEventMonitor: Sendable {
    let monitors: [any EventMonitor]

    init(monitors: [any EventMonitor]) {
        self.monitors = monitors
    }

    /// Whether no monitor is attached (events other than notifications are skipped then).
    var isEmpty: Bool { monitors.isEmpty }

    /// The queue notifications are posted from (never the engine thread, never the main queue).
    static let notificationQueue = DispatchQueue(label: "org.curlfire.notifications")

    /// Posts `name` on `NotificationCenter.default` with the request under ``Foundation/Notification/Key/Task``.
    func post(_ name: Notification.Name, request: any Request) {
        Self.notificationQueue.async {
            NotificationCenter.default.post(name: name, object: nil, userInfo: [Notification.Key.Task: request])
        }
    }

    /// Sends one event to every monitor, each on its own queue.
    func send(_ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for monitor in monitors {
            monitor.queue.async { event(monitor) }
        }
    }

    /// Calls `event` for every monitor now, on this thread (``EventMonitor/requestWasCreated(_:)``).
    func sendInline(_ event: (any EventMonitor) -> Void) {
        for monitor in monitors { event(monitor) }
    }

    /// Sends a non-`Sendable` payload (a serialized response, handed over once and never shared).
    func send<Payload>(_ payload: Payload, _ event: @escaping @Sendable (any EventMonitor, Payload) -> Void) {
        let box = UncheckedSendable(value: payload)
        send { monitor in event(monitor, box.value) }
    }
}
