import Foundation

extension SessionConfiguration {
    /// libcurl's `CURLOPT_CONNECT_TO` entry (`HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`) for one
    /// ``connectTo`` pair. The key is `host` or `host:port` (only that port is redirected); the
    /// value is `address`, `address:port` or `[IPv6]:port` (the port connected to). An empty field
    /// means any port for the key and the same port for the value.
    static func connectToEntry(key: String, value: String) -> String {
        let (host, port) = splitPort(key)
        let (address, connectPort) = splitPort(value)
        return "\(host):\(port):\(address):\(connectPort)"
    }

    /// `name` split at a trailing `:digits`; a bare IPv6 address (several colons, no brackets) is
    /// kept whole, as before ports were read.
    private static func splitPort(_ name: String) -> (String, String) {
        guard let colon = name.lastIndex(of: ":") else { return (name, "") }
        let digits = name[name.index(after: colon)...]
        let head = name[..<colon]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return (name, "") }
        if head.hasPrefix("[") ? head.hasSuffix("]") : !head.contains(":") { return (String(head), String(digits)) }
        return (name, "")
    }
}
