import Foundation
internal import COpenSSL

/// Runs a host's ``ServerTrustPolicy`` inside OpenSSL's certificate verification, for the engine.
///
/// One bridge per (session, host), created and cached by the engine for the life of the session.
///
/// Contract for the engine:
/// - In `CURLOPT_SSL_CTX_FUNCTION` (engine thread, once per new TLS connection) call
///   ``install(onSSLContext:handshake:)`` with the `SSL_CTX *` libcurl passes and the bits of the
///   `CURL *` easy handle; return `CURLE_OK` when it returns `true`, else `CURLE_SSL_CERTPROBLEM`.
/// - Set `CURLOPT_SSL_VERIFYPEER = 1` (with `0` OpenSSL ignores the callback's verdict) and
///   `CURLOPT_SSL_VERIFYHOST = 0` (the policy checks the host). Never set `CURLOPT_SSL_VERIFYSTATUS`: a
///   policy requiring a stapled OCSP response has the bridge request and verify it, with the bridge's
///   anchors (libcurl's own check uses its store, which never holds the session's trusted roots).
/// - Keep the bridge alive until every easy handle that used it is cleaned up and the multi handle is
///   cleaned up: connections in the multi's cache hold an `SSL_CTX` whose callback argument points at the
///   bridge (unretained).
/// - A reused connection or a resumed TLS session skips verification; never let a connection or TLS
///   session made under one policy serve a host under another.
/// - When a transfer ends, call ``takeFailure(forHandshake:)`` with the same easy handle bits: after a TLS
///   error (`CURLE_PEER_FAILED_VERIFICATION`, `CURLE_SSL_CONNECT_ERROR`) it gives the reason for
///   ``CurlfireError/serverTrustEvaluationFailed(host:reason:)``; after success it clears the record.
///
/// The bridge never touches the `SSL_CTX`'s own certificate store, which libcurl shares between handles:
/// it verifies against its own anchors (the session's trusted roots, else the system roots parsed once
/// per process).
///
/// `@unchecked Sendable`: its policy and anchors are constants after `init`; the failure records that
/// handshakes leave behind are kept in a ``HandshakeFailureRecord``, which has its own lock.
final class TLSTrustBridge: @unchecked Sendable {
    /// The host the policy is evaluated for.
    let host: String
    /// The policy; `nil` means default evaluation with host validation, or a rejection when
    /// ``policyRequired``.
    let policy: ServerTrustPolicy?
    /// Whether a missing policy rejects every chain (`ServerTrustPolicyManager.allHostsMustBeEvaluated`).
    let policyRequired: Bool
    /// Whether the policy requires a stapled OCSP response, which the bridge then requests and checks.
    let requiresStapledOCSP: Bool

    private let anchorStore: TrustStore
    /// The session's trusted roots (where an embedded SCT's issuer may be found).
    let trustedRoots: [Certificate]
    /// The host's Certificate Transparency requirement, checked after the policy accepted the chain.
    let transparency: CertificateTransparencyPolicy?
    /// The verdicts of handshakes in progress, by handshake key.
    let failures = HandshakeFailureRecord()

    /// Creates a bridge.
    ///
    /// - Parameters:
    ///   - host:         the host name or IP address the session connects to.
    ///   - policy:       the host's policy; `nil` for default evaluation with host validation.
    ///   - policyRequired: whether a `nil` policy rejects the server with `.noPolicyForHost` instead.
    ///   - trustedRoots: anchors replacing the system roots (the session's `trustedRootCertificates`);
    ///                   empty for the system roots.
    ///   - transparency: the host's Certificate Transparency requirement, `nil` for none.
    init(host: String, policy: ServerTrustPolicy?, policyRequired: Bool = false, trustedRoots: [Certificate],
         transparency: CertificateTransparencyPolicy? = nil) {
        self.host = host
        self.trustedRoots = trustedRoots
        self.transparency = transparency
        self.policy = policy
        self.policyRequired = policyRequired
        anchorStore = trustedRoots.isEmpty ? TrustStore.system : TrustStore(anchors: trustedRoots)
        if case let .performRevokedEvaluation(_, flags) = policy {
            requiresStapledOCSP = flags.contains(.requireStapledOCSP)
        } else {
            requiresStapledOCSP = false
        }
    }

    /// Installs the verify callback (and, for a policy requiring a stapled OCSP response, the status
    /// request and its callback) on a new connection's `SSL_CTX`, replacing OpenSSL's own chain
    /// verification for that context. Call on the engine thread, from `CURLOPT_SSL_CTX_FUNCTION`.
    ///
    /// - Parameters:
    ///   - ctx:       the `SSL_CTX *` libcurl passed (libcurl 7.88 makes one per connection).
    ///   - handshake: the key the verdict is recorded under: the bits of the easy handle making the connection.
    /// - Returns: `true` once installed.
    func install(onSSLContext ctx: UnsafeMutableRawPointer, handshake: UInt) -> Bool {
        let context = OpaquePointer(ctx)
        guard HandshakeKey.attach(handshake, to: context) else { return false }
        let me = Unmanaged.passUnretained(self).toOpaque()
        SSL_CTX_set_cert_verify_callback(context, { storeContext, argument in
            guard let storeContext, let argument else { return 0 }
            let bridge = Unmanaged<TLSTrustBridge>.fromOpaque(argument).takeUnretainedValue()
            return bridge.verify(storeContext)
        }, me)
        if transparency != nil, !Self.requestSignedCertificateTimestamps(on: context) { return false }
        if requiresStapledOCSP {
            guard cfssl_SSL_CTX_set_tlsext_status_type(context, TLSEXT_STATUSTYPE_ocsp) == 1,
                  cfssl_SSL_CTX_set_tlsext_status_cb(context, { ssl, argument in
                      guard let ssl, let argument else { return 0 }
                      let bridge = Unmanaged<TLSTrustBridge>.fromOpaque(argument).takeUnretainedValue()
                      return bridge.checkStapledResponse(ssl)
                  }) == 1,
                  cfssl_SSL_CTX_set_tlsext_status_arg(context, me) == 1 else { return false }
        }
        return true
    }

    /// Why the most recent handshake made by `handshake` was rejected, removing the record; `nil` if none.
    func takeFailure(forHandshake handshake: UInt) -> CurlfireError.ServerTrustFailureReason? {
        failures.take(forHandshake: handshake)
    }

    /// The verify callback's body: evaluates the presented chain, records the verdict under the
    /// handshake's key and sets the store context's result.
    func verify(_ storeContext: OpaquePointer) -> Int32 {
        let chain = presentedChain(storeContext)
        var outcome = evaluate(chain)
        if outcome.failure == nil, let transparency,
           let reason = checkTransparency(transparency, chain: chain, storeContext: storeContext) {
            outcome = .failure(reason)
        }
        if let key = HandshakeKey.key(ofStoreContext: storeContext) {
            failures.record(outcome.failure, forHandshake: key)
        }
        if outcome.failure == nil {
            // libcurl re-reads the verify result after the handshake: clear any earlier error.
            X509_STORE_CTX_set_error(storeContext, X509_V_OK)
            return 1
        }
        X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
        return 0
    }

    /// Evaluates a presented chain (leaf first) for this bridge's host and policy. A stapled OCSP
    /// response is not part of it: ``checkStapledResponse(_:)`` checks it once it has arrived.
    func evaluate(_ chain: [Certificate]) -> Result<Void, CurlfireError.ServerTrustFailureReason> {
        var trust = ServerTrust(certificates: chain)
        trust.anchorStore = anchorStore
        trust.stapledOCSPCheckedByHandshake = true
        if policy == nil, policyRequired { return .failure(.noPolicyForHost) }
        let policy = policy ?? .performDefaultEvaluation(validateHost: true)
        return policy.evaluation(trust, forHost: host)
    }

    /// The OCSP status callback's body (client side; runs once the server's flight is in, after the
    /// chain was verified, in TLS 1.2 and 1.3): checks the stapled response for the presented leaf and
    /// records the verdict. A resumed session passes, as it skips the verify callback. Returns 1 to
    /// continue the handshake, 0 to abort it.
    func checkStapledResponse(_ ssl: OpaquePointer) -> Int32 {
        // A resumed session sends no certificate and no staple: its full handshake passed this check (a
        // session is kept only after a successful handshake), as the verify callback's did.
        if SSL_session_reused(ssl) == 1 {
            if let key = HandshakeKey.key(ofSSL: ssl) { failures.record(nil, forHandshake: key) }
            return 1
        }
        var bytes: UnsafePointer<UInt8>?
        let length = cfssl_SSL_get_tlsext_status_ocsp_resp(ssl, &bytes)
        let response = length > 0 ? bytes.map { Data(bytes: $0, count: length) } : nil
        let outcome = checkStapledResponse(response, presented: peerChain(ssl))
        if let key = HandshakeKey.key(ofSSL: ssl) { failures.record(outcome.failure, forHandshake: key) }
        return outcome.failure == nil ? 1 : 0
    }

    /// Checks a stapled response (`nil`: none) for `presented`, verifying the chain with the bridge's
    /// anchors to find the leaf's issuer.
    func checkStapledResponse(
        _ response: Data?, presented: [Certificate]
    ) -> Result<Void, CurlfireError.ServerTrustFailureReason> {
        ChainVerifier.verify(presented, store: anchorStore, at: nil, wantChain: true)
            .mapError { ChainVerifier.reason(for: $0.code) }
            .flatMap { StapledOCSPVerifier.verify(response, verifiedChain: $0.chain, presented: presented, at: nil) }
    }

    /// The leaf and the untrusted certificates the peer sent, leaf first, without repeating the leaf.
    private func presentedChain(_ storeContext: OpaquePointer) -> [Certificate] {
        guard let leaf = X509_STORE_CTX_get0_cert(storeContext) else { return [] }
        return Self.chain(leaf: leaf, rest: X509_STORE_CTX_get0_untrusted(storeContext))
    }

    /// The certificates the server sent in this handshake, leaf first (a client's peer chain holds the leaf).
    private func peerChain(_ ssl: OpaquePointer) -> [Certificate] {
        guard let leaf = SSL_get0_peer_certificate(ssl) else { return [] }
        return Self.chain(leaf: leaf, rest: SSL_get_peer_cert_chain(ssl))
    }

    /// `leaf` followed by the certificates of `rest`, without duplicates.
    private static func chain(leaf: OpaquePointer, rest: OpaquePointer?) -> [Certificate] {
        var chain: [Certificate] = []
        if let certificate = Certificate(handle: X509Handle(retaining: leaf)) { chain.append(certificate) }
        if let rest {
            for index in 0..<cfssl_sk_X509_num(rest) {
                guard let x509 = cfssl_sk_X509_value(rest, index), x509 != leaf,
                      let certificate = Certificate(handle: X509Handle(retaining: x509)),
                      !chain.contains(certificate) else { continue }
                chain.append(certificate)
            }
        }
        return chain
    }
}

private extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
