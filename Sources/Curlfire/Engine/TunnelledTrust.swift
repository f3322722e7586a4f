import Foundation
internal import CCurl

/// The origin's trust evaluation for requests through an HTTPS proxy.
///
/// libcurl 7.88 calls `CURLOPT_SSL_CTX_FUNCTION` for every TLS handshake of a transfer: the
/// proxy's first, then — once the `CONNECT` succeeded — the origin's inside the tunnel. The
/// origin's ``ServerTrustPolicy`` must judge only the latter; the proxy is verified by libcurl with
/// the session's ``SessionConfiguration/ProxyTrust``. The two are told apart by the transfer's
/// `CONNECT` status at the time of the handshake: before a successful `CONNECT` (status 0, or a
/// 407 before an authenticated retry) it is the proxy's.
///
/// Stateless beyond the origin's bridge, which the session keeps; made per hop only for sessions
/// with an HTTPS proxy and a trust evaluation for the origin.
final class TunnelledTrust: TLSContextConfiguring {
    /// The origin host's evaluation.
    let origin: any TLSContextConfiguring

    init(origin: any TLSContextConfiguring) {
        self.origin = origin
    }

    func install(onSSLContext context: UnsafeMutableRawPointer, handshake: UInt) -> Bool {
        guard let easy = UnsafeMutableRawPointer(bitPattern: handshake) else { return false }
        guard (200..<300).contains(CurlInfo.long(easy, CURLINFO_HTTP_CONNECTCODE)) else {
            return true // the proxy's handshake: libcurl verifies it (PROXY_CAINFO_BLOB, PROXY_PINNEDPUBLICKEY)
        }
        return origin.install(onSSLContext: context, handshake: handshake)
    }

    func takeFailure(forHandshake handshake: UInt) -> CurlfireError.ServerTrustFailureReason? {
        origin.takeFailure(forHandshake: handshake)
    }
}
