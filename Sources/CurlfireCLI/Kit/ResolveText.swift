/// curl's `--resolve HOST:PORT:ADDRESS[,ADDRESS…]` values (IPv6 addresses in brackets).
public enum ResolveText {
    /// The host, port and addresses of `text`, or `nil` when it is not of that form.
    public static func parse(_ text: String) -> (host: String, port: Int, addresses: [String])? {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
        let addresses = parts[2].split(separator: ",").map { address -> String in
            address.hasPrefix("[") && address.hasSuffix("]") ? String(address.dropFirst().dropLast()) : String(address)
        }
        guard !addresses.isEmpty, !addresses.contains(where: \.isEmpty) else { return nil }
        return (String(parts[0]), port, addresses)
    }
}
