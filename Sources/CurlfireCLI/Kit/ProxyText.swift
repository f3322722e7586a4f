import Curlfire
import Foundation
import FoundationNetworking

/// curl's `--proxy [SCHEME://]HOST[:PORT]` and `--proxy-user USER:PASSWORD` values.
public enum ProxyText {
    /// The proxy `text` names with `credentials`, or `nil` when it is not of that form. The scheme
    /// is `http` (the default; port 1080 as curl's), `https` (port 443), `socks5` or `socks5h`
    /// (port 1080; names are resolved by the proxy either way); an IPv6 host is bracketed.
    public static func parse(_ text: String, credentials: URLCredential? = nil) -> SessionConfiguration.Proxy? {
        var rest = Substring(text)
        var scheme = "http"
        if let range = rest.range(of: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard !parts[0].contains("@"), !parts[0].contains("/") else { return nil }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty else { return nil }
        let defaultPort = scheme == "https" ? 443 : 1080
        guard let port = portText.map({ Int($0) }) ?? defaultPort, (1...65535).contains(port) else { return nil }
        switch scheme {
        case "http": return .http(host: String(host), port: port, credentials: credentials)
        case "https": return .https(host: String(host), port: port, credentials: credentials)
        case "socks5", "socks5h": return .socks5(host: String(host), port: port, credentials: credentials)
        default: return nil
        }
    }

    /// The credential of `--proxy-user USER:PASSWORD` (the password may hold `:`), or `nil`
    /// without a `:`.
    public static func credential(_ text: String) -> URLCredential? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return URLCredential(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]),
                             persistence: .none)
    }
}
