import Foundation
internal import COpenSSL

/// The certificates a pin may match when a policy does not validate the chain.
///
/// Alamofire 4 on Apple pins against the chain `SecTrust` builds from the leaf, even without chain
/// validation; a certificate the server merely appends is not part of it. The Linux equivalent: the path
/// starts at the presented leaf, and each following presented certificate joins it only if it signed
/// the one before (its public key verifies that certificate's signature, `X509_verify`). Dates, anchors,
/// names and purposes are ignored. The path stops at the first certificate whose signature the next one
/// does not verify, so a pinned CA certificate sent after a foreign (for example self-signed) leaf, or
/// after a gap (a missing intermediate), never matches.
enum SignaturePath {
    /// The signature path of `presented` (leaf first): the leaf, then each next certificate as long as
    /// it verifies the signature of the certificate before it.
    ///
    /// - Parameter presented: the certificates the server sent, leaf first.
    /// - Returns: a prefix of `presented`; empty when `presented` is.
    static func path(from presented: [Certificate]) -> [Certificate] {
        guard var current = presented.first else { return [] }
        var path = [current]
        for next in presented.dropFirst() {
            guard signs(next, current) else { break }
            path.append(next)
            current = next
        }
        OpenSSL.clearErrors()
        return path
    }

    /// Whether `issuer`'s public key verifies `subject`'s signature.
    static func signs(_ issuer: Certificate, _ subject: Certificate) -> Bool {
        guard let key = X509_get0_pubkey(issuer.handle.pointer) else { return false }
        return withExtendedLifetime((issuer, subject)) { X509_verify(subject.handle.pointer, key) == 1 }
    }
}
