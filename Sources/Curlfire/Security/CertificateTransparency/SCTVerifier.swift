import Foundation
internal import COpenSSL

/// Checks SCTs against a certificate with OpenSSL: the entry each SCT's log signed (RFC 6962 §3.2)
/// and the log's signature over it.
enum SCTVerifier {
    /// The certificate's SCT list extension (its inner OCTET STRING's content), `nil` when absent.
    static func embeddedList(_ leaf: Certificate) -> Data? {
        let x509 = leaf.handle.pointer
        let index = X509_get_ext_by_NID(x509, NID_ct_precert_scts, -1)
        guard index >= 0, let ext = X509_get_ext(x509, index), let octets = X509_EXTENSION_get_data(ext),
              let bytes = ASN1_STRING_get0_data(octets) else { return nil }
        let outer = [UInt8](UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(octets))))
        // The extension's value is itself a DER OCTET STRING holding the TLS-encoded list.
        guard outer.count >= 2, outer[0] == 0x04 else { return nil }
        var length = Int(outer[1]), start = 2
        if outer[1] & 0x80 != 0 {
            let count = Int(outer[1] & 0x7F)
            guard count <= 3, outer.count >= 2 + count else { return nil }
            length = outer[2..<2 + count].reduce(0) { $0 << 8 | Int($1) }
            start = 2 + count
        }
        guard start + length == outer.count else { return nil }
        return Data(outer[start...])
    }

    /// The precertificate entry a log signed for an embedded SCT: `precert_entry`, the issuer's key
    /// hash and the leaf's TBSCertificate without the SCT list extension.
    static func precertificateEntry(leaf: Certificate, issuer: Certificate) -> Data? {
        guard let issuerKey = issuer.publicKey, let copy = X509_dup(leaf.handle.pointer) else { return nil }
        defer { X509_free(copy) }
        let index = X509_get_ext_by_NID(copy, NID_ct_precert_scts, -1)
        guard index >= 0, let removed = X509_delete_ext(copy, index) else { return nil }
        X509_EXTENSION_free(removed)
        guard let tbs = OpenSSL.der({ i2d_re_X509_tbs(copy, $0) }) else { return nil }
        var entry = Data([0, 1]) // LogEntryType precert_entry
        entry.append(issuerKey.spkiSHA256)
        entry.append(uint24(tbs.count))
        entry.append(tbs)
        return entry
    }

    /// The X.509 entry a log signed for an SCT delivered in the TLS extension: the certificate itself.
    static func x509Entry(leaf: Certificate) -> Data {
        var entry = Data([0, 0]) // LogEntryType x509_entry
        entry.append(uint24(leaf.derData.count))
        entry.append(leaf.derData)
        return entry
    }

    /// Whether `signature` (DER ECDSA or RSA PKCS#1 v1.5, over SHA-256) verifies `data` with `key`
    /// (a DER SubjectPublicKeyInfo).
    static func verify(_ signature: Data, over data: Data, key: Data) -> Bool {
        defer { OpenSSL.clearErrors() }
        let publicKey: OpaquePointer? = key.withUnsafeBytes { raw in
            guard var cursor = raw.bindMemory(to: UInt8.self).baseAddress.map({ Optional($0) }) else { return nil }
            return d2i_PUBKEY(nil, &cursor, raw.count)
        }
        guard let publicKey else { return false }
        defer { EVP_PKEY_free(publicKey) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, publicKey) == 1 else { return false }
        return signature.withUnsafeBytes { signatureBytes in
            data.withUnsafeBytes { dataBytes in
                EVP_DigestVerify(context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count,
                                 dataBytes.bindMemory(to: UInt8.self).baseAddress, dataBytes.count) == 1
            }
        }
    }

    private static func uint24(_ value: Int) -> Data {
        Data([UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
