import Foundation

extension SessionConfiguration {
    /// Which IP versions host names resolve to.
    public enum IPVersion: Sendable, Hashable {
        /// IPv4 and IPv6, tried as Happy Eyeballs does. The default.
        case any
        /// IPv4 only: for a host whose IPv6 route is broken (a container without IPv6, say).
        case v4
        /// IPv6 only.
        case v6
    }

    /// Fixed addresses for a host name and port, as curl's `--resolve host:port:address`: requests
    /// to `host:port` connect to `addresses` (tried in order) without asking DNS, while the URL,
    /// the `Host` header and TLS (SNI, certificate checks, trust policies) still use `host`.
    public struct HostResolution: Sendable, Hashable {
        /// The host name, as in the URL.
        public var host: String
        /// The port, as in the URL (80 or 443 when the URL has none).
        public var port: Int
        /// IPv4 or IPv6 addresses (without brackets).
        public var addresses: [String]

        /// Fixed `addresses` for `host` on `port`.
        public init(host: String, port: Int, addresses: [String]) {
            self.host = host
            self.port = port
            self.addresses = addresses
        }

        /// libcurl's `CURLOPT_RESOLVE` entry (`host:port:addr,[v6addr]`), or `nil` when the host,
        /// port or an address is not usable.
        var curlEntry: String? {
            guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 58 && $0 != 44 }),
                  (1...65535).contains(port), !addresses.isEmpty else { return nil }
            var parts: [String] = []
            for address in addresses {
                if address.contains(":") {
                    var v6 = in6_addr()
                    guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
                    parts.append("[\(address)]")
                } else {
                    var v4 = in_addr()
                    guard inet_pton(AF_INET, address, &v4) == 1 else { return nil }
                    parts.append(address)
                }
            }
            return "\(host):\(port):\(parts.joined(separator: ","))"
        }
    }
}
