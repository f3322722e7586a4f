import Foundation
internal import CCurl

/// The trust evaluation of a session that resolves names over HTTPS
/// (``SessionConfiguration/dnsOverHTTPSURL``).
///
/// libcurl 7.88 sends its DNS-over-HTTPS queries on easy handles of its own and copies the parent
/// handle's `CURLOPT_SSL_CTX_FUNCTION`, its data and `CURLOPT_SSL_VERIFYHOST` to them. Without this
/// type the origin's ``ServerTrustPolicy`` would judge the resolver's handshake: an origin pin would
/// refuse the resolver, and `disableEvaluation` for the origin would accept any resolver (names
/// answered by an impostor). A query's handle is told apart by its `CURLINFO_PRIVATE`, which libcurl
/// does not copy and which every handle Curlfire makes carries; the resolver is then judged by the
/// default evaluation for its own host, against the session's trusted roots.
///
/// Made per hop only for sessions with both a DoH resolver and a trust evaluation for the origin.
final class DoHProbeTrust: TLSContextConfiguring {
    /// The origin host's evaluation.
    let origin: any TLSContextConfiguring
    /// The resolver's evaluation (``DNSOverHTTPS/resolverTrust``).
    let resolver: any TLSContextConfiguring

    init(origin: any TLSContextConfiguring, resolver: any TLSContextConfiguring) {
        self.origin = origin
        self.resolver = resolver
    }

    func install(onSSLContext context: UnsafeMutableRawPointer, handshake: UInt) -> Bool {
        guard let easy = UnsafeMutableRawPointer(bitPattern: handshake) else { return false }
        var owner: UnsafeMutableRawPointer?
        guard cfcurl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &owner) == CURLE_OK else { return false }
        return owner == nil
            ? resolver.install(onSSLContext: context, handshake: handshake)
            : origin.install(onSSLContext: context, handshake: handshake)
    }

    func takeFailure(forHandshake handshake: UInt) -> CurlfireError.ServerTrustFailureReason? {
        origin.takeFailure(forHandshake: handshake)
    }
}
