import Foundation
internal import COpenSSL

/// An X.509 certificate revocation list (CRL), held as its DER bytes and parsed with OpenSSL.
///
/// CRLs are supplied by you — Curlfire never downloads them — and passed to
/// ``ServerTrustPolicy/performRevokedEvaluation(validateHost:revocationFlags:)`` through
/// ``RevocationFlags/crl(_:)``.
public struct CertificateRevocationList: Sendable, Hashable {
    /// The CRL's DER encoding.
    public let derData: Data
    let handle: X509CRLHandle

    /// Parses one DER-encoded CRL.
    ///
    /// - Parameter derData: exactly one DER CRL.
    /// - Returns: `nil` when the bytes are not one well-formed CRL.
    public init?(derData: Data) {
        _ = OpenSSL.initialized
        let parsed = derData.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = UnsafePointer(base)
            guard let crl = d2i_X509_CRL(nil, &cursor, raw.count) else { return nil }
            guard cursor == UnsafePointer(base) + raw.count else { X509_CRL_free(crl); return nil }
            return crl
        }
        OpenSSL.clearErrors()
        guard let parsed else { return nil }
        self.init(handle: X509CRLHandle(taking: parsed))
    }

    /// Every `X509 CRL` block of PEM text, in order; other blocks and damaged blocks are skipped.
    ///
    /// - Parameter pem: PEM text, for example the output of `openssl ca -gencrl`.
    /// - Returns: the revocation lists; empty when there are none.
    public static func revocationLists(fromPEM pem: Data) -> [CertificateRevocationList] {
        OpenSSL.parseRevocationLists(pem: pem).compactMap { CertificateRevocationList(handle: X509CRLHandle(taking: $0)) }
    }

    /// Reads a PEM or DER CRL file; a PEM file may hold several CRLs.
    ///
    /// - Parameter url: a file URL.
    /// - Returns: the revocation lists; empty when the file cannot be read or holds none.
    public static func revocationLists(contentsOf url: URL) -> [CertificateRevocationList] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        if let single = CertificateRevocationList(derData: data) { return [single] }
        return revocationLists(fromPEM: data)
    }

    private init?(handle: X509CRLHandle) {
        guard let der = OpenSSL.der({ i2d_X509_CRL(handle.pointer, $0) }) else { return nil }
        self.handle = handle
        self.derData = der
    }

    /// The issuer name in RFC 2253 one-line form.
    public var issuerSummary: String { OpenSSL.rfc2253(X509_CRL_get_issuer(handle.pointer)) }

    /// When the CRL was issued (`thisUpdate`).
    public var lastUpdate: Date { OpenSSL.date(X509_CRL_get0_lastUpdate(handle.pointer)) }

    /// When the next CRL is due (`nextUpdate`), if the CRL says.
    public var nextUpdate: Date? {
        guard let time = X509_CRL_get0_nextUpdate(handle.pointer) else { return nil }
        return OpenSSL.date(time)
    }

    /// Whether both hold the same DER bytes.
    public static func == (lhs: CertificateRevocationList, rhs: CertificateRevocationList) -> Bool {
        lhs.derData == rhs.derData
    }

    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(derData) }
}
