import Foundation

/// How the certificate chain a server presents is evaluated for one host.
///
/// Evaluation runs inside the TLS handshake, before any byte of the request is sent. A policy is a pure
/// function of (``ServerTrust``, host): call ``evaluate(_:forHost:)`` or ``evaluation(_:forHost:)`` to
/// test one without a network.
///
/// Chain validation follows OpenSSL's `X509_verify_cert` with the "TLS server" purpose; partial chains are
/// accepted (an anchor may be an intermediate or the leaf itself), as curl does. Host validation uses
/// `X509_check_host` (a wildcard matches exactly one whole left-most label) or `X509_check_ip_asc` for IP
/// addresses. Unlike Alamofire 4, `validateHost` is honoured even when `validateCertificateChain` is `false`.
public enum ServerTrustPolicy: Sendable {
    /// Verifies the chain against the anchors (the system roots, or the session's
    /// `trustedRootCertificates`) and, when `validateHost` is `true`, that the leaf names the host.
    case performDefaultEvaluation(validateHost: Bool)

    /// As ``performDefaultEvaluation(validateHost:)``, and checks revocation as ``RevocationFlags`` describes.
    case performRevokedEvaluation(validateHost: Bool, revocationFlags: RevocationFlags)

    /// Accepts the chain only if it contains one of `certificates`.
    ///
    /// With `validateCertificateChain`, the pinned certificates are the only anchors: the chain must verify
    /// up to one of them (a pinned leaf, intermediate or root; a pinned intermediate or root need not be
    /// sent by the server). Without it, a pinned certificate must be byte-equal to one on the signature path
    /// that starts at the presented leaf (each next presented certificate's key verifies the previous one's
    /// signature; dates and anchors are ignored), so a CA certificate appended after a foreign leaf never
    /// matches — as Alamofire 4 behaves on Apple.
    case pinCertificates(certificates: [Certificate], validateCertificateChain: Bool, validateHost: Bool)

    /// Accepts the chain only if one of its certificates has one of `publicKeys`.
    ///
    /// With `validateCertificateChain`, the chain is first verified against the anchors and the key may be
    /// anywhere in the *verified* chain, so a pinned root the server does not send still matches. Without
    /// it, the key must be on the signature path that starts at the presented leaf (as for
    /// ``pinCertificates(certificates:validateCertificateChain:validateHost:)``): a pinned root matches only
    /// when the server sends it and every certificate between it and the leaf.
    case pinPublicKeys(publicKeys: [PublicKey], validateCertificateChain: Bool, validateHost: Bool)

    /// Accepts any chain. For development only.
    case disableEvaluation

    /// Calls the closure with the server trust and the host; `true` accepts. The closure runs on the
    /// session's engine thread during the handshake: keep it fast, and do not block.
    case customEvaluation(@Sendable (ServerTrust, String) -> Bool)

    /// Evaluates `serverTrust` for `host`.
    ///
    /// - Parameters:
    ///   - serverTrust: the presented chain, anchors and verification time.
    ///   - host:        the host name or IP address the client connected to.
    /// - Returns: whether the chain is acceptable.
    public func evaluate(_ serverTrust: ServerTrust, forHost host: String) -> Bool {
        if case .success = evaluation(serverTrust, forHost: host) { return true }
        return false
    }

    /// Evaluates `serverTrust` for `host`, giving the precise reason when the chain is rejected.
    ///
    /// - Parameters:
    ///   - serverTrust: the presented chain, anchors and verification time.
    ///   - host:        the host name or IP address the client connected to.
    /// - Returns: success, or the ``CurlfireError/ServerTrustFailureReason``.
    public func evaluation(
        _ serverTrust: ServerTrust, forHost host: String
    ) -> Result<Void, CurlfireError.ServerTrustFailureReason> {
        TrustEvaluator(trust: serverTrust, host: host).evaluate(self)
    }
}
