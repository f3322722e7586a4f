import Foundation
import FoundationNetworking

extension SessionConfiguration {
    /// Which proxy to use, and how to authenticate to it.
    ///
    /// `credentials` are sent to the proxy only: for an HTTP or HTTPS proxy with whichever scheme
    /// it asks for among Basic, Digest, NTLM and Negotiate (libcurl's `CURLAUTH_ANY`), for SOCKS5
    /// as its username/password method (RFC 1929). A proxy that refuses them fails the request with
    /// ``CurlfireError/proxyAuthenticationRequired(proxy:)``. An IPv6 address is written bare
    /// (`"::1"`) or bracketed (`"[::1]"`).
    public enum Proxy: Sendable, Hashable {
        /// No proxy, whatever the environment says. The default: a server process should not
        /// change where its traffic goes because of an inherited environment variable.
        case none
        /// libcurl's environment variables: `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`.
        case environment
        /// An HTTP proxy; HTTPS requests go through a `CONNECT` tunnel.
        case http(host: String, port: Int, credentials: URLCredential? = nil)
        /// An HTTPS proxy (TLS to the proxy, verified against the system roots, or against
        /// ``SessionConfiguration/proxyTrust`` when set).
        case https(host: String, port: Int, credentials: URLCredential? = nil)
        /// A SOCKS5 proxy; names are resolved by the proxy.
        case socks5(host: String, port: Int, credentials: URLCredential? = nil)

        /// The proxy's address as libcurl takes it (`CURLOPT_PROXY`), IPv6 hosts bracketed.
        func curlURL(host: String, port: Int) -> String {
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            switch self {
            case .https: return "https://\(bracketed):\(port)"
            case .socks5: return "socks5h://\(bracketed):\(port)"
            default: return "http://\(bracketed):\(port)"
            }
        }

        /// The host, port and credentials of an explicit proxy; `nil` for ``none`` and ``environment``.
        var endpoint: (host: String, port: Int, credentials: URLCredential?)? {
            switch self {
            case .none, .environment: return nil
            case let .http(host, port, credentials), let .https(host, port, credentials),
                 let .socks5(host, port, credentials):
                return (host, port, credentials)
            }
        }
    }

    /// How an HTTPS proxy's own certificate is checked — apart from the origins', whose
    /// ``ServerTrustPolicy`` and ``SessionConfiguration/trustedRootCertificates`` apply to the
    /// servers reached through the proxy's tunnel and never to the proxy.
    public struct ProxyTrust: Sendable {
        /// The roots the proxy's chain must lead to, instead of the system's. Empty: the system roots.
        public var trustedRootCertificates: [Certificate]
        /// Public keys the proxy must present one of (its leaf's), on top of a valid chain for its
        /// host name. Empty: no pin.
        public var pinnedPublicKeys: [PublicKey]

        /// A trust setting for the HTTPS proxy.
        ///
        /// - Parameters:
        ///   - trustedRootCertificates: the roots of the proxy's chain (a private CA); empty for the system roots.
        ///   - pinnedPublicKeys: the keys the proxy may present; empty for none.
        public init(trustedRootCertificates: [Certificate] = [], pinnedPublicKeys: [PublicKey] = []) {
            self.trustedRootCertificates = trustedRootCertificates
            self.pinnedPublicKeys = pinnedPublicKeys
        }
    }
}
