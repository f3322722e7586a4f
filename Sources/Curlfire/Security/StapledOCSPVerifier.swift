import Foundation
internal import COpenSSL

/// Verifies a stapled OCSP response (DER) for the leaf of a verified chain, with the chain's own anchors.
///
/// libcurl's `CURLOPT_SSL_VERIFYSTATUS` verifies the response against libcurl's certificate store, which
/// never holds a session's `trustedRootCertificates`; Curlfire therefore requests the staple itself and
/// checks it here, both inside the handshake (``TLSTrustBridge``) and when a ``ServerTrust`` is evaluated
/// offline, so both give the same verdict. The checks:
/// - the response is successful and holds a basic response whose signature verifies (`OCSP_basic_verify`,
///   the signer found among the response's and the presented certificates);
/// - the signer is authorised: the leaf's issuer itself (the next certificate of the verified chain, so
///   trusted through the anchors), or a delegated responder the issuer signed directly, with the OCSP
///   signing extended key usage and valid at the verification time;
/// - the response has a status for the leaf (matched by CertID: issuer name and key hashes, serial);
/// - it is fresh: `thisUpdate` not after the verification time and `nextUpdate`, if any, not before it,
///   each with ``leeway`` (as `OCSP_check_validity`, but at the ``ServerTrust``'s verification date);
/// - the status is `good`.
enum StapledOCSPVerifier {
    /// The rejection reason type.
    typealias Reason = CurlfireError.ServerTrustFailureReason

    /// Clock skew tolerated on `thisUpdate` and `nextUpdate` (OpenSSL's examples use 300 s).
    static let leeway: TimeInterval = 300

    /// The failure messages, all reported as ``CurlfireError/ServerTrustFailureReason/revoked(message:)``.
    enum Message {
        /// No response was stapled.
        static let missing = "the server stapled no OCSP response"
        /// The bytes are not an OCSP response with a basic response.
        static let malformed = "the stapled OCSP response is malformed"
        /// The response's signature does not verify with its signer's key, or no signer was found.
        static let badSignature = "the stapled OCSP response's signature does not verify"
        /// The signer is neither the issuer nor a responder the issuer delegated.
        static let unauthorisedSigner = "the stapled OCSP response is not signed by the certificate's issuer or its delegated responder"
        /// The leaf is its own anchor: there is no issuer to match the response against.
        static let noIssuer = "the certificate's issuer is not in the verified chain, so its stapled OCSP response cannot be checked"
        /// The response holds no status for the leaf.
        static let notForCertificate = "the stapled OCSP response has no status for the server's certificate"
        /// `thisUpdate` is in the future.
        static let notYetValid = "the stapled OCSP response is not yet valid"
        /// `nextUpdate` has passed.
        static let expired = "the stapled OCSP response has expired"
        /// The responder does not know the certificate.
        static let unknown = "the stapled OCSP response gives the certificate's status as unknown"
        /// The certificate is revoked.
        static let revoked = "certificate revoked (stapled OCSP response)"
    }

    /// Checks `response` for the leaf of `verifiedChain`.
    ///
    /// - Parameters:
    ///   - response:      the stapled response's DER bytes; `nil` or empty when none was stapled.
    ///   - verifiedChain: the chain verified against the anchors, leaf first, ending at the anchor.
    ///   - presented:     the certificates the server sent (where the signer may be found).
    ///   - date:          the verification time; `nil` means now.
    /// - Returns: success when the leaf's status is `good`, else the reason.
    static func verify(
        _ response: Data?, verifiedChain: [Certificate], presented: [Certificate], at date: Date?
    ) -> Result<Void, Reason> {
        defer { OpenSSL.clearErrors() }
        guard let response, !response.isEmpty else { return .failure(.revoked(message: Message.missing)) }
        guard verifiedChain.count >= 2 else { return .failure(.revoked(message: Message.noIssuer)) }
        guard let ocspResponse = parse(response) else { return .failure(.revoked(message: Message.malformed)) }
        defer { OCSP_RESPONSE_free(ocspResponse) }
        let status = OCSP_response_status(ocspResponse)
        guard status == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            let text = OCSP_response_status_str(Int(status)).map { String(cString: $0) } ?? "status \(status)"
            return .failure(.revoked(message: "the stapled OCSP response is an error (\(text))"))
        }
        guard let basic = OCSP_response_get1_basic(ocspResponse) else {
            return .failure(.revoked(message: Message.malformed))
        }
        defer { OCSP_BASICRESP_free(basic) }
        let leaf = verifiedChain[0], issuer = verifiedChain[1]
        let now = date ?? Date()
        return withExtendedLifetime((verifiedChain, presented)) {
            if let failure = checkSigner(basic, issuer: issuer, candidates: presented + verifiedChain, at: now) {
                return .failure(.revoked(message: failure))
            }
            return checkStatus(basic, leaf: leaf, issuer: issuer, at: now)
        }
    }

    // MARK: - Steps

    /// Parses one DER OCSP response.
    private static func parse(_ data: Data) -> OpaquePointer? {
        data.withUnsafeBytes { raw -> OpaquePointer? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor: UnsafePointer<UInt8>? = UnsafePointer(base)
            return d2i_OCSP_RESPONSE(nil, &cursor, raw.count)
        }
    }

    /// Verifies the signature and the signer's authority; `nil` when both hold, else the message.
    private static func checkSigner(
        _ basic: OpaquePointer, issuer: Certificate, candidates: [Certificate], at date: Date
    ) -> String? {
        guard let untrusted = cfssl_sk_X509_new_null() else { return Message.badSignature }
        defer { cfssl_sk_X509_free(untrusted) }  // the stack only; the certificates belong to `candidates`
        for candidate in candidates { _ = cfssl_sk_X509_push(untrusted, candidate.handle.pointer) }
        // The signature only: the signer's authority is checked below against the verified issuer, at
        // `date`, instead of OpenSSL's own chain building (at the current time, with the store's flags).
        let store = TrustStore(anchors: [])
        guard OCSP_basic_verify(basic, untrusted, store.pointer, UInt(OCSP_NOVERIFY)) == 1 else {
            return Message.badSignature
        }
        var signerPointer: OpaquePointer?
        guard OCSP_resp_get0_signer(basic, &signerPointer, untrusted) == 1, let signerPointer,
              let signer = Certificate(handle: X509Handle(retaining: signerPointer)) else { return Message.badSignature }
        if signer == issuer { return nil }
        return isDelegatedResponder(signer, of: issuer, at: date) ? nil : Message.unauthorisedSigner
    }

    /// Whether `signer` was issued by `issuer` itself, carries the OCSP signing extended key usage and is
    /// valid at `date` (RFC 6960 §4.2.2.2).
    private static func isDelegatedResponder(_ signer: Certificate, of issuer: Certificate, at date: Date) -> Bool {
        let x509 = signer.handle.pointer
        guard X509_check_issued(issuer.handle.pointer, x509) == X509_V_OK, SignaturePath.signs(issuer, signer),
              X509_get_extension_flags(x509) & UInt32(EXFLAG_XKUSAGE) != 0,
              X509_get_extended_key_usage(x509) & UInt32(XKU_OCSP_SIGN) != 0 else { return false }
        return signer.notValidBefore <= date && date <= signer.notValidAfter
    }

    /// Finds the leaf's single response and checks its freshness and status.
    private static func checkStatus(
        _ basic: OpaquePointer, leaf: Certificate, issuer: Certificate, at date: Date
    ) -> Result<Void, Reason> {
        guard let single = singleResponse(in: basic, leaf: leaf, issuer: issuer) else {
            return .failure(.revoked(message: Message.notForCertificate))
        }
        var reason: Int32 = -1
        var revocationTime: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        let status = OCSP_single_get0_status(single, &reason, &revocationTime, &thisUpdate, &nextUpdate)
        guard let thisUpdate else { return .failure(.revoked(message: Message.malformed)) }
        if OpenSSL.date(thisUpdate) > date.addingTimeInterval(leeway) {
            return .failure(.revoked(message: Message.notYetValid))
        }
        if let nextUpdate, OpenSSL.date(nextUpdate) < date.addingTimeInterval(-leeway) {
            return .failure(.revoked(message: Message.expired))
        }
        switch status {
        case V_OCSP_CERTSTATUS_GOOD:
            return .success(())
        case V_OCSP_CERTSTATUS_REVOKED:
            let why = reason >= 0 ? OCSP_crl_reason_str(Int(reason)).map { String(cString: $0) } : nil
            return .failure(.revoked(message: Message.revoked + (why.map { ", reason: \($0)" } ?? "")))
        default:
            return .failure(.revoked(message: Message.unknown))
        }
    }

    /// The single response whose CertID names `leaf` issued by `issuer`, with the hash the responder used.
    private static func singleResponse(in basic: OpaquePointer, leaf: Certificate, issuer: Certificate) -> OpaquePointer? {
        for index in 0..<max(0, OCSP_resp_count(basic)) {
            guard let single = OCSP_resp_get0(basic, index), let id = OCSP_SINGLERESP_get0_id(single) else { continue }
            var algorithm: OpaquePointer?
            guard OCSP_id_get0_info(nil, &algorithm, nil, nil, id) == 1,
                  let digest = EVP_get_digestbyname(OBJ_nid2sn(OBJ_obj2nid(algorithm))),
                  let expected = OCSP_cert_to_id(digest, leaf.handle.pointer, issuer.handle.pointer) else { continue }
            defer { OCSP_CERTID_free(expected) }
            if OCSP_id_cmp(expected, id) == 0 { return single }
        }
        return nil
    }
}
