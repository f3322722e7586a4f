import Foundation
internal import COpenSSL

extension TLSTrustBridge {
    /// Makes the client ask for SCTs in the TLS `signed_certificate_timestamp` extension: OpenSSL
    /// sends the request only when a CT validation callback is set. The callback accepts everything;
    /// the verify callback has already applied the host's ``CertificateTransparencyPolicy``.
    static func requestSignedCertificateTimestamps(on context: OpaquePointer) -> Bool {
        SSL_CTX_set_ct_validation_callback(context, { _, _, _ in 1 }, nil) == 1
    }

    /// Applies the host's Certificate Transparency requirement to a chain its policy accepted.
    func checkTransparency(_ transparency: CertificateTransparencyPolicy, chain: [Certificate],
                           storeContext: OpaquePointer) -> CurlfireError.ServerTrustFailureReason? {
        let sslIndex = SSL_get_ex_data_X509_STORE_CTX_idx()
        let ssl = sslIndex >= 0 ? X509_STORE_CTX_get_ex_data(storeContext, sslIndex) : nil
        let tlsList = ssl.flatMap { Self.tlsExtensionSCTs(OpaquePointer($0)) }
        let trust = ServerTrust(certificates: chain, anchorCertificates: trustedRoots.isEmpty ? nil : trustedRoots)
        return transparency.evaluate(trust, tlsExtensionSCTs: tlsList)
    }

    /// The SCTs the server sent in the TLS extension, TLS-encoded as a `SignedCertificateTimestampList`;
    /// `nil` when there are none.
    static func tlsExtensionSCTs(_ ssl: OpaquePointer) -> Data? {
        guard let stack = SSL_get0_peer_scts(ssl) else { return nil }
        var body = Data()
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let raw = OPENSSL_sk_value(stack, index) else { continue }
            let sct = OpaquePointer(raw)
            guard SCT_get_source(sct) == SCT_SOURCE_TLS_EXTENSION else { continue }
            var out: UnsafeMutablePointer<UInt8>?
            let length = i2o_SCT(sct, &out)
            guard length > 0, let out else { continue }
            body.append(contentsOf: [UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            body.append(out, count: Int(length))
            CRYPTO_free(out, nil, 0)
        }
        guard !body.isEmpty else { return nil }
        return Data([UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)]) + body
    }
}
