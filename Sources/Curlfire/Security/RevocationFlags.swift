import Foundation

/// How ``ServerTrustPolicy/performRevokedEvaluation(validateHost:revocationFlags:)`` checks revocation.
///
/// Linux has no system revocation service, and Curlfire fetches nothing online: revocation is established
/// from certificate revocation lists (CRLs) you supply, and from a stapled OCSP response the server sends.
///
/// ```swift
/// let crls = CertificateRevocationList.revocationLists(contentsOf: crlFile)
/// let policy = ServerTrustPolicy.performRevokedEvaluation(
///     validateHost: true,
///     revocationFlags: [.crl(crls), .crlCheckWholeChain, .requirePositiveResponse])
/// ```
///
/// - ``crl``: check the leaf against the supplied CRLs. An empty set of flags means the same.
/// - ``crlCheckWholeChain``: check every certificate of the chain, not only the leaf (implies ``crl``).
/// - ``requirePositiveResponse``: a certificate whose issuer has no supplied CRL fails; without this flag
///   only a certificate a CRL lists as revoked fails ("soft fail").
/// - ``requireStapledOCSP``: the server must staple an OCSP response, and Curlfire checks it against the
///   same anchors as the chain (the session's `trustedRootCertificates`, else the system roots): signed by
///   the leaf's issuer or a responder it delegated, fresh, and `good` for the leaf. The handshake requests
///   and checks it; when evaluating a ``ServerTrust`` directly, pass it as ``ServerTrust/stapledOCSPResponse``.
///
/// The CRLs travel with the flags: ``crl(_:)`` attaches them, and combining flags (array literal, `union`,
/// `insert`, `formUnion`, `symmetricDifference`) gathers the CRLs of every operand; `intersection` and
/// `subtracting` keep the receiver's CRLs. Equality and `contains` look at the options only.
public struct RevocationFlags: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: UInt
    /// The CRLs attached with ``crl(_:)``, without duplicates.
    public let revocationLists: [CertificateRevocationList]

    /// Flags from option bits, with no CRLs.
    ///
    /// - Parameter rawValue: the option bits.
    public init(rawValue: UInt) {
        self.init(rawValue: rawValue, revocationLists: [])
    }

    /// Flags from option bits with CRLs attached.
    ///
    /// - Parameters:
    ///   - rawValue:        the option bits.
    ///   - revocationLists: the CRLs to check against.
    public init(rawValue: UInt, revocationLists: [CertificateRevocationList]) {
        self.rawValue = rawValue
        var seen = Set<CertificateRevocationList>()
        self.revocationLists = revocationLists.filter { seen.insert($0).inserted }
    }

    /// Check the leaf against the supplied CRLs.
    public static let crl = RevocationFlags(rawValue: 1 << 0)
    /// Check every certificate of the chain against the supplied CRLs.
    public static let crlCheckWholeChain = RevocationFlags(rawValue: 1 << 1)
    /// Require a stapled OCSP response from the server.
    public static let requireStapledOCSP = RevocationFlags(rawValue: 1 << 2)
    /// Fail when the revocation status of a checked certificate cannot be established.
    public static let requirePositiveResponse = RevocationFlags(rawValue: 1 << 3)

    /// ``crl`` with these CRLs attached.
    ///
    /// - Parameter revocationLists: the CRLs, from ``CertificateRevocationList/revocationLists(fromPEM:)``.
    /// - Returns: the flags.
    public static func crl(_ revocationLists: [CertificateRevocationList]) -> RevocationFlags {
        RevocationFlags(rawValue: crl.rawValue, revocationLists: revocationLists)
    }

    // MARK: - Combining keeps the CRLs

    /// The options of both, with the CRLs of both.
    public func union(_ other: RevocationFlags) -> RevocationFlags {
        RevocationFlags(rawValue: rawValue | other.rawValue, revocationLists: revocationLists + other.revocationLists)
    }

    /// Adds the options and CRLs of `other`.
    public mutating func formUnion(_ other: RevocationFlags) {
        self = union(other)
    }

    /// Adds `newMember`'s options and CRLs.
    @discardableResult
    public mutating func insert(_ newMember: RevocationFlags) -> (inserted: Bool, memberAfterInsert: RevocationFlags) {
        let inserted = !contains(newMember)
        formUnion(newMember)
        return (inserted, newMember)
    }

    /// Adds `newMember`'s options and CRLs; returns the options already present, if any.
    @discardableResult
    public mutating func update(with newMember: RevocationFlags) -> RevocationFlags? {
        let present = contains(newMember) ? newMember : nil
        formUnion(newMember)
        return present
    }

    /// The options in both; keeps this value's CRLs.
    public func intersection(_ other: RevocationFlags) -> RevocationFlags {
        RevocationFlags(rawValue: rawValue & other.rawValue, revocationLists: revocationLists)
    }

    /// Keeps only the options also in `other`, and this value's CRLs.
    public mutating func formIntersection(_ other: RevocationFlags) {
        self = intersection(other)
    }

    /// The options in exactly one of both, with the CRLs of both.
    public func symmetricDifference(_ other: RevocationFlags) -> RevocationFlags {
        RevocationFlags(rawValue: rawValue ^ other.rawValue, revocationLists: revocationLists + other.revocationLists)
    }

    /// Keeps the options in exactly one of both, with the CRLs of both.
    public mutating func formSymmetricDifference(_ other: RevocationFlags) {
        self = symmetricDifference(other)
    }

    /// The options not in `other`; keeps this value's CRLs.
    public func subtracting(_ other: RevocationFlags) -> RevocationFlags {
        RevocationFlags(rawValue: rawValue & ~other.rawValue, revocationLists: revocationLists)
    }

    /// Removes the options of `other`; keeps this value's CRLs.
    public mutating func subtract(_ other: RevocationFlags) {
        self = subtracting(other)
    }

    /// Whether both hold the same options (attached CRLs are not compared).
    public static func == (lhs: RevocationFlags, rhs: RevocationFlags) -> Bool { lhs.rawValue == rhs.rawValue }
}
