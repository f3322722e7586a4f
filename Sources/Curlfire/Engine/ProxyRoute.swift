import Foundation
import FoundationNetworking

/// A session's proxy settings as libcurl takes them, made once per session (the hot path copies a
/// reference). `nil` in ``AttemptOptions`` when the session sets no proxy option beyond ``SessionConfiguration/Proxy/none``
/// or ``SessionConfiguration/Proxy/environment`` without a ``SessionConfiguration/noProxy`` list.
final class ProxyRoute: Sendable {
    /// `CURLOPT_PROXY`: the proxy's URL; `nil` leaves libcurl reading the environment.
    let url: String?
    /// `CURLOPT_PROXYUSERNAME` / `CURLOPT_PROXYPASSWORD`, when the proxy has credentials.
    let user: String?
    let password: String?
    /// Whether `CURLOPT_PROXYAUTH` is set to every scheme libcurl has (HTTP and HTTPS proxies with credentials).
    let negotiatesAuthentication: Bool
    /// `CURLOPT_NOPROXY`: the comma-separated hosts reached directly; `nil` leaves libcurl's default.
    let noProxy: String?
    /// `CURLOPT_PROXYHEADER` lines (sent with `CURLHEADER_SEPARATE`); empty for none.
    let headerLines: [String]
    /// The `host:port` named in ``CurlfireError/proxyAuthenticationRequired(proxy:)``.
    let displayName: String
    /// The proxy's host (its certificate's, for an HTTPS proxy).
    let host: String
    /// Whether TLS runs to the proxy itself (an HTTPS proxy).
    let isHTTPS: Bool
    /// `CURLOPT_PROXY_CAINFO_BLOB`: the roots of ``SessionConfiguration/ProxyTrust``, replacing the
    /// system's; `nil` for the system roots.
    let trustedRootsPEM: [UInt8]?
    /// `CURLOPT_PROXY_PINNEDPUBLICKEY`: `sha256//…;sha256//…`, or `nil`.
    let pinnedPublicKeys: String?

    /// Makes the route of a configuration, or `nil` when it changes nothing libcurl would do with
    /// `CURLOPT_PROXY` alone (``SessionConfiguration/Proxy/none``, no lists).
    static func make(_ configuration: SessionConfiguration) -> ProxyRoute? {
        let proxy = configuration.proxy
        if proxy == .none { return nil }
        if proxy == .environment, configuration.noProxy.isEmpty, configuration.proxyHeaders.isEmpty { return nil }
        return ProxyRoute(configuration)
    }

    private init(_ configuration: SessionConfiguration) {
        let proxy = configuration.proxy
        if case .https = proxy { isHTTPS = true } else { isHTTPS = false }
        host = proxy.endpoint?.host ?? ""
        let trust = configuration.proxyTrust
        trustedRootsPEM = trust.flatMap { $0.trustedRootCertificates.isEmpty ? nil : DNSOverHTTPS.pem($0.trustedRootCertificates) }
        pinnedPublicKeys = trust.flatMap { $0.pinnedPublicKeys.isEmpty ? nil : $0.pinnedPublicKeys.map(\.pin).joined(separator: ";") }
        if let endpoint = proxy.endpoint {
            url = proxy.curlURL(host: endpoint.host, port: endpoint.port)
            displayName = "\(endpoint.host.contains(":") && !endpoint.host.hasPrefix("[") ? "[\(endpoint.host)]" : endpoint.host):\(endpoint.port)"
            user = endpoint.credentials?.user
            password = endpoint.credentials.map { $0.password ?? "" }
            if case .socks5 = proxy { negotiatesAuthentication = false } else { negotiatesAuthentication = user != nil }
        } else {
            url = nil
            displayName = "the environment's proxy"
            user = nil
            password = nil
            negotiatesAuthentication = false
        }
        let hosts = configuration.noProxy.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        noProxy = hosts.isEmpty ? nil : hosts.joined(separator: ",")
        headerLines = configuration.proxyHeaders.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
    }
}
