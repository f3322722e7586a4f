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
    /// The OCSP response the server stapled to the handshake (DER), or `nil` when it stapled none.
    ///
    /// Checked by ``RevocationFlags/requireStapledOCSP``: signed by the leaf's issuer (or a responder it
    /// delegated), fresh at ``verificationDate``, and `good` for the leaf. Inside a handshake the response
    /// arrives after the chain is evaluated, so a ``ServerTrustPolicy/customEvaluation(_:)`` closure sees
    /// `nil` here; the handshake checks the response itself once it arrives.
    public var stapledOCSPResponse: Data?

    /// CRLs to check in addition to those a revocation policy carries (for example supplied by the session).
    var revocationLists: [CertificateRevocationList] = []
    /// Whether the handshake checks the stapled OCSP response itself once it arrives (``TLSTrustBridge``'s
    /// status callback), so the chain's evaluation skips that check.
    var stapledOCSPCheckedByHandshake = false
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
    ///   - stapledOCSPResponse: the DER OCSP response the server stapled; `nil` by default, meaning none.
    public init(certificates: [Certificate], anchorCertificates: [Certificate]? = nil, verificationDate: Date? = nil,
                stapledOCSPResponse: Data? = nil) {
        self.certificates = certificates
        self.anchorCertificates = anchorCertificates
        self.verificationDate = verificationDate
        self.stapledOCSPResponse = stapledOCSPResponse
    }

    /// The store to verify against: the prebuilt one, the given anchors, or the system roots.
    var resolvedAnchorStore: TrustStore {
        if let anchorStore { return anchorStore }
        if let anchorCertificates { return TrustStore(anchors: anchorCertificates) }
        return TrustStore.system
    }
}
