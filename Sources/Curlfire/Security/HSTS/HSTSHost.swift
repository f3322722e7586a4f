import Foundation

/// Host names as HSTS sees them (RFC 6797 §8.3 and §8.2): lower-cased, without a trailing dot, and
/// never an IP literal.
enum HSTSHost {
    /// The host's HSTS form, or `nil` for an IP literal (IPv4, IPv6 with or without brackets) or
    /// an empty name: those are never HSTS hosts.
    static func normalized(_ host: String?) -> String? {
        guard var name = host?.lowercased(), !name.isEmpty else { return nil }
        if name.hasPrefix("[") || name.contains(":") { return nil } // IPv6 literal
        while name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, !isIPv4Literal(name) else { return nil }
        return name
    }

    /// Whether `name` is a dotted IPv4 address (`inet_pton`), or the all-digit forms libcurl and
    /// resolvers also read as addresses (`2130706433`, `127.1`).
    static func isIPv4Literal(_ name: String) -> Bool {
        var address = in_addr()
        if inet_pton(AF_INET, name, &address) == 1 { return true }
        return inet_aton(name, &address) != 0
    }

    /// `url` with `https` for `http`: port 80 (explicit or implied) becomes the default 443, any
    /// other explicit port is kept (RFC 6797 §8.3). `nil` when `url` is not an `http` URL.
    static func upgraded(_ url: URL) -> URL? {
        guard url.scheme?.lowercased() == "http",
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = "https"
        if components.port == 80 { components.port = nil }
        return components.url
    }
}
