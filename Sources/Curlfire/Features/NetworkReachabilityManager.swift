import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tells whether a host (or the network in general) can be reached, and when that changes — the
/// Linux counterpart of Alamofire 4's manager of the same name.
///
/// Changes are driven by the kernel: a netlink socket subscribed to link, address and route
/// events (IPv4 and IPv6), read by a dispatch source — no polling. On each event the status is
/// computed again: a route lookup for the host (connecting a UDP socket, which sends nothing) and
/// a check that the interface holding the chosen source address is up and running. Reachable
/// means a route exists and its interface is up; it says nothing about whether the host answers.
/// Linux has no cellular distinction: reachable is always ``ConnectionType/ethernetOrWiFi``.
///
/// ``shared`` watches the network in general for the whole program, and every listening manager
/// also posts `Notification.Name.Reachability.DidChange`. ``OfflineRetrier`` uses a
/// manager to retry requests once the network is back.
///
/// `@unchecked Sendable` (it is `open`, so it cannot be checked): the listener, its queue, the netlink
/// source and the last status are read and written only under the manager's lock; the target is a
/// constant and the status is computed on the manager's own serial netlink queue.
open class NetworkReachabilityManager: @unchecked Sendable {
    /// Whether and how the host can be reached.
    public enum NetworkReachabilityStatus: Equatable, Sendable {
        /// Not determined yet.
        case unknown
        /// No route, or its interface is down.
        case notReachable
        /// A route through an interface that is up.
        case reachable(ConnectionType)
    }

    /// How the host is reached.
    public enum ConnectionType: Equatable, Sendable {
        /// A wired or wireless LAN interface (every interface on Linux).
        case ethernetOrWiFi
        /// A cellular interface (never reported on Linux).
        case wwan
    }

    /// Called with each new status.
    public typealias Listener = @Sendable (NetworkReachabilityStatus) -> Void

    /// Whether the host is reachable now.
    open var isReachable: Bool { isReachableOnEthernetOrWiFi || isReachableOnWWAN }
    /// Whether the host is reachable over a cellular interface (always `false` on Linux).
    open var isReachableOnWWAN: Bool { networkReachabilityStatus == .reachable(.wwan) }
    /// Whether the host is reachable over a LAN interface.
    open var isReachableOnEthernetOrWiFi: Bool { networkReachabilityStatus == .reachable(.ethernetOrWiFi) }

    /// The status now (computed on the spot: a route lookup, and a name resolution for a host name).
    open var networkReachabilityStatus: NetworkReachabilityStatus { ReachabilityProbe.status(of: target) }

    /// Where ``listener`` is called. A serial queue of the manager by default (not the main queue,
    /// which Linux programs often never run).
    open var listenerQueue: DispatchQueue {
        get { lock.withLock { queue } }
        set { lock.withLock { queue = newValue } }
    }

    /// Called on ``listenerQueue`` with the status when listening starts and whenever it changes.
    open var listener: Listener? {
        get { lock.withLock { storedListener } }
        set { lock.withLock { storedListener = newValue } }
    }

    private let target: ReachabilityProbe.Target
    private let lock = Lock.make()
    private var queue = DispatchQueue(label: "org.curlfire.reachability.listener")
    private var storedListener: Listener?
    private var source: DispatchSourceRead?
    private var previous: NetworkReachabilityStatus?
    private let eventQueue = DispatchQueue(label: "org.curlfire.reachability.netlink")

    /// Watches `host` (a name or an IPv4/IPv6 address). `nil` for an empty host.
    public init?(host: String) {
        guard !host.isEmpty else { return nil }
        target = .host(host)
    }

    /// Watches the network in general: reachable when a default route (IPv4 or IPv6) leads out
    /// through an interface that is up.
    public init?() {
        target = .internet
    }

    /// Watches `target` (``shared``: the network in general).
    init(watching target: ReachabilityProbe.Target) {
        self.target = target
    }

    deinit {
        stopListening()
    }

    /// Starts listening for changes; the listener is called with the current status first.
    /// Returns `false` when the netlink socket cannot be opened.
    @discardableResult
    open func startListening() -> Bool {
        lock.lock()
        if source != nil {
            lock.unlock()
            return true
        }
        lock.unlock()
        guard let descriptor = NetlinkSocket.open() else { return false }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: eventQueue)
        source.setEventHandler { [weak self] in
            NetlinkSocket.drain(descriptor)
            self?.evaluate()
        }
        source.setCancelHandler { close(descriptor) }
        lock.withLock {
            self.source = source
            previous = nil
        }
        source.resume()
        eventQueue.async { [weak self] in self?.evaluate() }
        return true
    }

    /// Stops listening. The listener is not called again.
    open func stopListening() {
        let source = lock.withLock { () -> DispatchSourceRead? in
            defer { self.source = nil }
            return self.source
        }
        source?.cancel()
    }

    /// Computes the status (on the netlink queue) and tells the listener when it changed.
    private func evaluate() {
        let status = ReachabilityProbe.status(of: target)
        lock.lock()
        guard source != nil, status != previous else {
            lock.unlock()
            return
        }
        previous = status
        let listener = storedListener
        let queue = self.queue
        lock.unlock()
        NotificationCenter.default.post(name: Notification.Name.Reachability.DidChange, object: self,
                                        userInfo: [Notification.Key.ReachabilityStatus: status])
        if let listener { queue.async { listener(status) } }
    }
}

/// The netlink route socket: opened non-blocking, subscribed to link, address and route groups.
enum NetlinkSocket {
    private static let netlinkRoute: Int32 = 0 // NETLINK_ROUTE
    // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE
    private static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    /// `struct sockaddr_nl`, which Glibc does not import.
    private struct Address {
        var family = UInt16(AF_NETLINK)
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32
    }

    static func open() -> Int32? {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                                netlinkRoute)
        guard descriptor >= 0 else { return nil }
        var address = Address(groups: groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Reads and discards every pending message: any event means "look again".
    static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, 0) }) > 0 {}
    }
}
