import Foundation

/// A session's connections, tracked from libcurl's socket callbacks (LiveEventsCallbacks.swift),
/// and its attempts in the engine: the source of ``ConnectionPoolStatistics``.
///
/// Exists only for a session with a monitor that ``EventMonitor/receivesLiveEvents``. Written on
/// the engine thread, read from any thread: `@unchecked Sendable` because every mutable field lives
/// in `state`, a `LockedValue`, and the monitors are immutable.
///
/// Every socket opened through `curlfireOpenSocketCallback` retains the tracker once and its close
/// (`curlfireCloseSocketCallback`) releases it: libcurl may close a pooled connection after every
/// request and even the session are gone, and the close callback's pointer must still be valid then.
final class ConnectionTracker: @unchecked Sendable {
    /// One open socket.
    struct Connection {
        let id: Int
        /// `host:port` as the request's URL names them.
        let key: String
        let host: String
        let port: Int
        let opened: UInt64
        /// The socket's local `address:port`, learned when its first attempt acquires it.
        var localEndpoint: String?
        /// Attempts using it now (more than one over HTTP/2).
        var users = 0
    }

    private struct State {
        var nextID = 1
        var byDescriptor: [Int32: Connection] = [:]
        var waiting = 0
        var active = 0
    }

    private let state = LockedValue(State())
    private let monitors: [any EventMonitor]

    /// A tracker reporting to `monitors` (those that receive live events).
    init(monitors: [any EventMonitor]) {
        self.monitors = monitors
    }

    /// The counts now.
    var statistics: ConnectionPoolStatistics { state.withLock { Self.statistics($0) } }

    private static func statistics(_ state: State) -> ConnectionPoolStatistics {
        var hosts: [String: ConnectionPoolStatistics.Host] = [:]
        for connection in state.byDescriptor.values {
            var host = hosts[connection.key] ?? .init(open: 0, inUse: 0)
            host.open += 1
            if connection.users > 0 { host.inUse += 1 }
            hosts[connection.key] = host
        }
        return ConnectionPoolStatistics(hosts: hosts, waitingRequests: state.waiting, activeRequests: state.active)
    }

    /// Applies `change` and reports the new counts to the monitors.
    @discardableResult
    private func change<T>(_ change: (inout State) -> T) -> T {
        let (result, statistics) = state.withLock { state in (change(&state), Self.statistics(state)) }
        for monitor in monitors { monitor.queue.async { monitor.connectionPoolDidChange(statistics) } }
        return result
    }

    // MARK: - Attempts (engine thread)

    /// An attempt entered the engine: it waits for a connection.
    func attemptEntered() {
        change { state in
            state.active += 1
            state.waiting += 1
        }
    }

    /// An attempt left the engine, with or without having had a connection.
    func attemptLeft(usedConnection descriptor: Int32?, acquired: Bool) {
        change { state in
            state.active -= 1
            if !acquired { state.waiting -= 1 }
            if let descriptor, state.byDescriptor[descriptor] != nil { state.byDescriptor[descriptor]?.users -= 1 }
        }
    }

    // MARK: - Sockets (engine thread)

    /// A socket was opened for `host`:`port`; returns its connection id.
    func opened(_ descriptor: Int32, host: String, port: Int) -> Int {
        change { state in
            let id = state.nextID
            state.nextID += 1
            state.byDescriptor[descriptor] = Connection(id: id, key: "\(host):\(port)", host: host, port: port,
                                                        opened: DispatchTime.now().uptimeNanoseconds)
            return id
        }
    }

    /// An attempt got the connection of `descriptor` (new: its local endpoint is recorded).
    func acquired(_ descriptor: Int32, localEndpoint: String?) -> Int? {
        change { state in
            state.waiting -= 1
            guard state.byDescriptor[descriptor] != nil else { return nil }
            if let localEndpoint { state.byDescriptor[descriptor]?.localEndpoint = localEndpoint }
            state.byDescriptor[descriptor]?.users += 1
            return state.byDescriptor[descriptor]?.id
        }
    }

    /// The open socket whose local endpoint is `endpoint` (a reused connection).
    func descriptor(forLocalEndpoint endpoint: String) -> Int32? {
        state.withLock { state in state.byDescriptor.first { $0.value.localEndpoint == endpoint }?.key }
    }

    /// A socket was closed.
    func closed(_ descriptor: Int32) {
        guard let connection = change({ $0.byDescriptor.removeValue(forKey: descriptor) }) else { return }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds &- connection.opened) / 1e9
        let closed = ClosedConnection(connectionID: connection.id, host: connection.host, port: connection.port,
                                      duration: seconds)
        for monitor in monitors { monitor.queue.async { monitor.connectionDidClose(closed) } }
    }
}
