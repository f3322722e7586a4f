import Foundation

/// What a server presented in a TLS handshake, and what to evaluate it against.
///
/// The engine builds one inside each handshake. Tests and tools build one directly to evaluate a chain
/// against a given root at a given time, without a network:
///
/// ```swift
/// let trust = ServerTrust(certificates: Certificate.certificates(fromPEM: chainPEM),
///                         anchorCertificates: [root],
///                         verificationDate: Date(timeIntervalSince1970: 1_800_000_000))
/// let ok = ServerTrustPolicy.performDefaultEvaluation(validateHost: true).evaluate(trust, forHost: "localhost")
/// ```
public struct ServerTrust: Sendable {
    /// The certificates the server presented: the leaf first, then the intermediates it sent, if any.
    public let certificates: [Certificate]
    /// The trust anchors; `nil` means the system's trusted roots.
    public let anchorCertificates: [Certificate]?
    /// The time to verify at; `nil` means now.
    public let verificationDate: Date?

    /// CRLs to check in addition to those a revocation policy carries (for example supplied by the session).
    var revocationLists: [CertificateRevocationList] = []
    /// Whether a stapled OCSP response is present, or is checked by the transport after the handshake
    /// (libcurl's `CURLOPT_SSL_VERIFYSTATUS`); consulted by ``RevocationFlags/requireStapledOCSP``.
    var stapledOCSPResponsePresent = false
    /// A prebuilt store of the anchors, so a handshake does not rebuild it; `nil` builds it from
    /// ``anchorCertificates`` (or uses the system store).
    var anchorStore: TrustStore?

    /// Creates a server trust to evaluate.
    ///
    /// - Parameters:
    ///   - certificates:       the presented chain, leaf first.
    ///   - anchorCertificates: the trusted anchors (roots, or intermediates: partial chains are accepted);
    ///                         `nil` by default, meaning the system's trusted roots.
    ///   - verificationDate:   the time at which to verify; `nil` by default, meaning now.
    public init(certificates: [Certificate], anchorCertificates: [Certificate]? = nil, verificationDate: Date? = nil) {
        self.certificates = certificates
        self.anchorCertificates = anchorCertificates
        self.verificationDate = verificationDate
    }

    /// The store to verify against: the prebuilt one, the given anchors, or the system roots.
    var resolvedAnchorStore: TrustStore {
        if let anchorStore { return anchorStore }
        if let anchorCertificates { return TrustStore(anchors: anchorCertificates) }
        return TrustStore.system
    }
}
