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
    /// observability: the monitors' own adapters (``EventMonitor/requestAdapter``), run after the session's.
    let adapters: [any RequestAdapter]
    /// observability: the monitors responses wait for (``EventMonitor/finishesBeforeDelivery``).
    let finishers: [any EventMonitor]
    /// observability: the monitors that receive live events (``EventMonitor/receivesLiveEvents``).
    let liveMonitors: [any EventMonitor]
    /// observability: the session's connections, tracked only when some monitor receives live events.
    let connections: ConnectionTracker?

    init(monitors: [any EventMonitor]) {
        self.monitors = monitors
        adapters = monitors.compactMap(\.requestAdapter)
        finishers = monitors.filter(\.finishesBeforeDelivery)
        liveMonitors = monitors.filter(\.receivesLiveEvents)
        connections = liveMonitors.isEmpty ? nil : ConnectionTracker(monitors: liveMonitors)
    }

    /// Sends ``EventMonitor/requestDidFinish(_:)`` to every monitor, then calls `delivery` — at once
    /// when no monitor ``EventMonitor/finishesBeforeDelivery``, else once each such monitor's
    /// `requestDidFinish` has returned on its queue (on a global queue then).
    func finish(_ request: any Request, then delivery: @escaping @Sendable () -> Void) {
        guard !finishers.isEmpty else {
            send { $0.requestDidFinish(request) }
            return delivery()
        }
        let group = DispatchGroup()
        for monitor in monitors {
            if monitor.finishesBeforeDelivery {
                monitor.queue.async(group: group) { monitor.requestDidFinish(request) }
            } else {
                monitor.queue.async { monitor.requestDidFinish(request) }
            }
        }
        group.notify(queue: .global(), execute: delivery)
    }

    /// Whether no monitor is attached (events other than notifications are skipped then).
    var isEmpty: Bool { monitors.isEmpty }

    /// The queue notifications are posted from (never the engine thread, never the main queue).
    static let notificationQueue = DispatchQueue(label: "org.curlfire.notifications")

    /// Posts `name` on `NotificationCenter.default` with the request under ``Foundation/Notification/Key/Task``.
    ///
    /// Posts are queued in order and drained by one block on ``notificationQueue``: while a drain is
    /// scheduled, a new post only joins the queue, so requests finishing within the same
    /// ``postingDelayMilliseconds`` wake that queue once instead of once each (a thread wake-up per
    /// notification was a measurable share of a small request's CPU).
    func post(_ name: Notification.Name, request: any Request) {
        let schedules = Self.pendingPosts.withLock { pending -> Bool in
            pending.posts.append((name, request))
            guard !pending.drainScheduled else { return false }
            pending.drainScheduled = true
            return true
        }
        if schedules {
            Self.notificationQueue.asyncAfter(deadline: .now() + .milliseconds(Self.postingDelayMilliseconds),
                                              execute: Self.drainBlock)
        }
    }

    /// ``drainPosts()`` as a block made once: a Swift closure handed to `asyncAfter` becomes a new
    /// heap block (its context and the block's copy: two allocations) every time a drain is scheduled.
    private static let drainBlock: @Sendable @convention(block) () -> Void = { drainPosts() }

    /// How long a first notification waits for others to join it: posts are asynchronous, and no
    /// observer can tell a few milliseconds' lateness of one, so requests finishing within this
    /// window share one drain.
    ///
    /// Each drain wakes libdispatch's manager thread (its `asyncAfter` timer, sleeping in
    /// `epoll_wait`) and a worker thread that posts. At 1 ms, requests made one after another
    /// (1,000–5,000/s on this loaded machine) paid 0.4–0.85 voluntary context switches each for it,
    /// counted with `perf record -e sched:sched_switch` per thread: the fourth switch per request of
    /// docs/Performance.md ("2026-11-26 evening"). At 10 ms, 0.04–0.14.
    static let postingDelayMilliseconds = 10

    /// Notifications waiting to be posted, oldest first, and whether a drain is on its way.
    private static let pendingPosts = LockedValue<(posts: [(Notification.Name, any Request)], drainScheduled: Bool)>(
        ([], false))

    /// Posts every waiting notification in order, on ``notificationQueue``, until none is left.
    ///
    /// The waiting list and the batch being posted swap buffers: copying the list and then emptying
    /// it "keeping capacity" made a new buffer on every drain, since the copy shared the old one.
    /// Swapped, the emptied batch goes back as the list's buffer, so a drain allocates no array.
    ///
    /// Every post of a drain reuses one `userInfo` dictionary. Foundation keeps no reference to a
    /// notification nobody observes (nor one whose observers let it go), so the dictionary is unique
    /// again when `post` returns and the next request is written into it in place; an observer that
    /// keeps its notification keeps its own copy (the next write copies first). A dictionary per post
    /// was one or two allocations per notification whether anyone observed it or not.
    ///
    /// The one entry is written through its index, not its key: a keyed write hashed the key's
    /// `String` and compared it through `AnyHashable` on every post (about 1 % of a request's CPU at
    /// 64 in flight, docs/Performance.md, "2026-11-26 night"). The dictionary has that one entry
    /// only, so it sits at `startIndex`; a copy made for an observer keeps its layout.
    private static func drainPosts() {
        var batch: [(Notification.Name, any Request)] = []
        var userInfo: [AnyHashable: Any] = [Notification.Key.Task: ()] // its value is set before each post
        let slot = userInfo.startIndex
        while true {
            pendingPosts.withLock { pending in
                swap(&batch, &pending.posts)
                if batch.isEmpty { pending.drainScheduled = false }
            }
            if batch.isEmpty { return }
            for (name, request) in batch {
                userInfo.values[slot] = request
                NotificationCenter.default.post(name: name, object: nil, userInfo: userInfo)
            }
            batch.removeAll(keepingCapacity: true) // unique here: no new buffer
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
