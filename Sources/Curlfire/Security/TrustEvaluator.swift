import Foundation
internal import COpenSSL

/// Applies one ``ServerTrustPolicy`` to one ``ServerTrust`` and host.
struct TrustEvaluator {
    typealias Reason = CurlfireError.ServerTrustFailureReason
    typealias Outcome = Result<Void, Reason>

    let trust: ServerTrust
    let host: String

    func evaluate(_ policy: ServerTrustPolicy) -> Outcome {
        switch policy {
        case .disableEvaluation:
            return .success(())
        case let .customEvaluation(closure):
            return closure(trust, host) ? .success(()) : .failure(.customEvaluationRejected)
        default:
            break
        }
        guard let leaf = trust.certificates.first else { return .failure(.noCertificatesFound) }
        let outcome: Outcome
        let validateHost: Bool
        switch policy {
        case let .performDefaultEvaluation(validate):
            validateHost = validate
            outcome = verifyChain(store: trust.resolvedAnchorStore).map { _ in }
        case let .performRevokedEvaluation(validate, flags):
            validateHost = validate
            outcome = evaluateRevocation(flags)
        case let .pinCertificates(pinned, validateChain, validate):
            validateHost = validate
            outcome = evaluatePinnedCertificates(pinned, validateChain: validateChain)
        case let .pinPublicKeys(pinned, validateChain, validate):
            validateHost = validate
            outcome = evaluatePinnedKeys(pinned, validateChain: validateChain)
        case .disableEvaluation, .customEvaluation:
            return .success(())  // handled above
        }
        guard case .success = outcome else { return outcome }
        if validateHost, !HostMatcher.matches(leaf, host: host) { return .failure(.hostMismatch) }
        if case let .performRevokedEvaluation(_, flags) = policy, flags.contains(.requireStapledOCSP),
           !trust.stapledOCSPCheckedByHandshake {
            // Last, as in a handshake, where the response arrives after the chain was accepted.
            return evaluateStapledOCSP()
        }
        return .success(())
    }

    // MARK: - Policies

    private func verifyChain(
        store: TrustStore, revocation: ChainVerifier.Revocation? = nil, wantChain: Bool = false
    ) -> Result<[Certificate], Reason> {
        ChainVerifier.verify(trust.certificates, store: store, at: trust.verificationDate,
                             revocation: revocation, wantChain: wantChain)
            .map(\.chain)
            .mapError { ChainVerifier.reason(for: $0.code) }
    }

    /// The stapled OCSP response's verdict for the verified chain's leaf.
    private func evaluateStapledOCSP() -> Outcome {
        verifyChain(store: trust.resolvedAnchorStore, wantChain: true).flatMap { chain in
            StapledOCSPVerifier.verify(trust.stapledOCSPResponse, verifiedChain: chain,
                                       presented: trust.certificates, at: trust.verificationDate)
        }
    }

    private func evaluateRevocation(_ flags: RevocationFlags) -> Outcome {
        let revocation = ChainVerifier.Revocation(
            lists: flags.revocationLists + trust.revocationLists,
            wholeChain: flags.contains(.crlCheckWholeChain),
            requirePositiveResponse: flags.contains(.requirePositiveResponse))
        return verifyChain(store: trust.resolvedAnchorStore, revocation: revocation).map { _ in }
    }

    private func evaluatePinnedCertificates(_ pinned: [Certificate], validateChain: Bool) -> Outcome {
        guard validateChain else {
            // Only the signature path from the leaf counts: an appended CA certificate does not.
            let path = SignaturePath.path(from: trust.certificates)
            return path.contains(where: pinned.contains) ? .success(()) : .failure(.certificatePinMismatch)
        }
        // The pinned certificates are the only anchors.
        let verified = ChainVerifier.verify(trust.certificates, store: TrustStore(anchors: pinned),
                                            at: trust.verificationDate, wantChain: true)
        switch verified {
        case let .failure(failure):
            return .failure(ChainVerifier.isMissingAnchor(failure.code)
                ? .certificatePinMismatch : ChainVerifier.reason(for: failure.code))
        case let .success(result):
            return result.chain.contains(where: pinned.contains) ? .success(()) : .failure(.certificatePinMismatch)
        }
    }

    private func evaluatePinnedKeys(_ pinned: [PublicKey], validateChain: Bool) -> Outcome {
        let chain: [Certificate]
        if validateChain {
            switch verifyChain(store: trust.resolvedAnchorStore, wantChain: true) {
            case let .failure(reason): return .failure(reason)
            case let .success(verified): chain = verified
            }
        } else {
            // Only the signature path from the leaf counts: an appended CA certificate does not.
            chain = SignaturePath.path(from: trust.certificates)
        }
        let pins = Set(pinned)
        return chain.contains { $0.publicKey.map(pins.contains) ?? false } ? .success(()) : .failure(.publicKeyPinMismatch)
    }
}

/// Whether a certificate names a host: `X509_check_ip_asc` for IP literals, else `X509_check_host`.
enum HostMatcher {
    static func matches(_ certificate: Certificate, host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, !name.contains("\0") else { return false }
        let x509 = certificate.handle.pointer
        let result: Int32
        if isIPAddress(name) {
            result = X509_check_ip_asc(x509, name, 0)
        } else {
            result = X509_check_host(x509, name, name.utf8.count, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS), nil)
        }
        OpenSSL.clearErrors()
        return result == 1
    }

    static func isIPAddress(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }
}
