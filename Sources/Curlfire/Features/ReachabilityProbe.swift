import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One reachability check: route lookup by connecting a UDP socket (nothing is sent), then the
/// state of the interface holding the source address the kernel chose.
enum ReachabilityProbe {
    /// What is watched.
    enum Target: Sendable {
        /// A host name or address.
        case host(String)
        /// Any default route.
        case internet
    }

    /// Public addresses used only for the route lookup of ``Target/internet`` (no packet is sent).
    private static let internetProbes = ["8.8.8.8", "2001:4860:4860::8888"]

    static func status(of target: Target) -> NetworkReachabilityManager.NetworkReachabilityStatus {
        let hosts: [String]
        switch target {
        case let .host(host): hosts = [host]
        case .internet: hosts = internetProbes
        }
        let up = upInterfaceAddresses()
        for host in hosts {
            for address in resolve(host) where routeLeadsOut(to: address, through: up) {
                return .reachable(.ethernetOrWiFi)
            }
        }
        return .notReachable
    }

    /// The addresses of `host` (numeric hosts need no lookup).
    private static func resolve(_ host: String) -> [Data] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, "9", &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [Data] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let address = current.pointee.ai_addr {
                addresses.append(Data(bytes: address, count: Int(current.pointee.ai_addrlen)))
            }
            node = current.pointee.ai_next
        }
        return addresses
    }

    /// Whether the kernel has a route to `address` whose source address sits on an interface that
    /// is up and running.
    private static func routeLeadsOut(to address: Data, through upAddresses: Set<Data>) -> Bool {
        let family = address.withUnsafeBytes { $0.load(as: sockaddr.self).sa_family }
        let descriptor = socket(Int32(family), Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let connected = address.withUnsafeBytes {
            connect(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
        guard connected == 0 else { return false }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return false }
        return upAddresses.contains(hostBytes(of: &local))
    }

    /// The host part of every address on an interface that is up and running.
    private static func upInterfaceAddresses() -> Set<Data> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var result = Set<Data>()
        var node: UnsafeMutablePointer<ifaddrs>? = first
        let required = UInt32(IFF_UP) | UInt32(IFF_RUNNING)
        while let current = node {
            if current.pointee.ifa_flags & required == required, let address = current.pointee.ifa_addr {
                var storage = sockaddr_storage()
                let size = address.pointee.sa_family == UInt16(AF_INET6) ? MemoryLayout<sockaddr_in6>.size
                    : MemoryLayout<sockaddr_in>.size
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: size)) }
                result.insert(hostBytes(of: &storage))
            }
            node = current.pointee.ifa_next
        }
        return result
    }

    /// The address bytes alone (no port, no scope), so a socket's and an interface's compare equal.
    private static func hostBytes(of storage: inout sockaddr_storage) -> Data {
        withUnsafeBytes(of: &storage) { raw -> Data in
            switch Int32(raw.load(as: sockaddr.self).sa_family) {
            case AF_INET:
                let address = raw.load(as: sockaddr_in.self).sin_addr
                return withUnsafeBytes(of: address) { Data($0) }
            case AF_INET6:
                let address = raw.load(as: sockaddr_in6.self).sin6_addr
                return withUnsafeBytes(of: address) { Data($0) }
            default:
                return Data()
            }
        }
    }
}
