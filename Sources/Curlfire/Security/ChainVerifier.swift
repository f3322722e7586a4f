import Foundation
internal import COpenSSL

/// Verifies a presented chain with `X509_verify_cert` against a trust store, and maps OpenSSL's verify
/// errors to ``CurlfireError/ServerTrustFailureReason``.
enum ChainVerifier {
    typealias Reason = CurlfireError.ServerTrustFailureReason

    /// Revocation settings for one verification.
    struct Revocation {
        var lists: [CertificateRevocationList]
        var wholeChain: Bool
        var requirePositiveResponse: Bool
    }

    /// The result of a successful verification.
    struct Verified {
        /// The verified chain, leaf first, ending at the anchor; filled only when asked for.
        var chain: [Certificate]
    }

    /// A failed verification: OpenSSL's `X509_V_ERR_*` code.
    struct Failure: Error {
        var code: Int32
    }

    /// Verifies `certificates` (leaf first; the rest are untrusted intermediates) against `store`.
    ///
    /// Partial chains are accepted: an anchor may be an intermediate or the leaf itself. The purpose is
    /// "TLS server". `certificates` and the CRLs in `revocation` are parameters, so they outlive the
    /// `X509_STORE_CTX` that borrows their OpenSSL objects.
    static func verify(
        _ certificates: [Certificate], store: TrustStore, at date: Date?,
        revocation: Revocation? = nil, wantChain: Bool = false
    ) -> Result<Verified, Failure> {
        guard let leaf = certificates.first else { return .failure(Failure(code: X509_V_ERR_UNSPECIFIED)) }
        // Defers run in reverse: the context is freed before the stacks it borrows.
        var crls: OpaquePointer?
        defer { if let crls { cfssl_sk_X509_CRL_free(crls) } }  // the stack only; the CRLs belong to `revocation`
        guard let untrusted = cfssl_sk_X509_new_null() else { return .failure(Failure(code: X509_V_ERR_OUT_OF_MEM)) }
        defer { cfssl_sk_X509_free(untrusted) }  // the stack only; the certificates belong to `certificates`
        for certificate in certificates.dropFirst() { _ = cfssl_sk_X509_push(untrusted, certificate.handle.pointer) }
        guard let context = X509_STORE_CTX_new() else { return .failure(Failure(code: X509_V_ERR_OUT_OF_MEM)) }
        defer { X509_STORE_CTX_free(context) }

        let result: Result<Verified, Failure> = withExtendedLifetime(certificates) {
            guard X509_STORE_CTX_init(context, store.pointer, leaf.handle.pointer, untrusted) == 1 else {
                return .failure(Failure(code: X509_V_ERR_UNSPECIFIED))
            }
            _ = X509_STORE_CTX_set_default(context, "ssl_server")
            let param = X509_STORE_CTX_get0_param(context)
            var flags = UInt(X509_V_FLAG_PARTIAL_CHAIN)
            if let date { X509_VERIFY_PARAM_set_time(param, time_t(date.timeIntervalSince1970.rounded(.down))) }
            if let revocation {
                flags |= UInt(X509_V_FLAG_CRL_CHECK)
                if revocation.wholeChain { flags |= UInt(X509_V_FLAG_CRL_CHECK_ALL) }
                crls = cfssl_sk_X509_CRL_new_null()
                for list in revocation.lists { _ = cfssl_sk_X509_CRL_push(crls, list.handle.pointer) }
                X509_STORE_CTX_set0_crls(context, crls)
                if !revocation.requirePositiveResponse {
                    X509_STORE_CTX_set_verify_cb(context) { ok, context in
                        // Soft fail: a missing CRL is not a failure unless a positive response is required.
                        if ok == 0, X509_STORE_CTX_get_error(context) == X509_V_ERR_UNABLE_TO_GET_CRL { return 1 }
                        return ok
                    }
                }
            }
            _ = X509_VERIFY_PARAM_set_flags(param, flags)
            guard X509_verify_cert(context) == 1 else {
                let code = X509_STORE_CTX_get_error(context)
                return .failure(Failure(code: code == X509_V_OK ? X509_V_ERR_UNSPECIFIED : code))
            }
            return .success(Verified(chain: wantChain ? verifiedChain(of: context) : []))
        }
        OpenSSL.clearErrors()
        return result
    }

    /// The chain `X509_verify_cert` built, leaf first.
    private static func verifiedChain(of context: OpaquePointer) -> [Certificate] {
        guard let chain = X509_STORE_CTX_get0_chain(context) else { return [] }
        return (0..<cfssl_sk_X509_num(chain)).compactMap { index in
            cfssl_sk_X509_value(chain, index).flatMap { Certificate(handle: X509Handle(retaining: $0)) }
        }
    }

    /// The failure reason for an `X509_V_ERR_*` code.
    static func reason(for code: Int32) -> Reason {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateNotYetValid
        case X509_V_ERR_CERT_REVOKED, X509_V_ERR_UNABLE_TO_GET_CRL, X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER,
             X509_V_ERR_CRL_HAS_EXPIRED, X509_V_ERR_CRL_NOT_YET_VALID, X509_V_ERR_CRL_SIGNATURE_FAILURE,
             X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE, X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD,
             X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD, X509_V_ERR_KEYUSAGE_NO_CRL_SIGN,
             X509_V_ERR_UNHANDLED_CRITICAL_CRL_EXTENSION, X509_V_ERR_DIFFERENT_CRL_SCOPE:
            return .revoked(message: OpenSSL.verifyErrorString(code))
        default:
            return .chainInvalid(verifyError: Int(code), message: OpenSSL.verifyErrorString(code))
        }
    }

    /// Whether `code` means "no anchor was reached" rather than "a certificate is bad".
    static func isMissingAnchor(_ code: Int32) -> Bool {
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return true
        default:
            return false
        }
    }
}
