import Foundation
internal import COpenSSL

/// Runs a host's ``ServerTrustPolicy`` inside OpenSSL's certificate verification, for the engine.
///
/// One bridge per (session, host), created and cached by the engine for the life of the session.
///
/// Contract for the engine:
/// - In `CURLOPT_SSL_CTX_FUNCTION` (engine thread, once per new TLS connection) call
///   ``install(onSSLContext:)`` with the `SSL_CTX *` libcurl passes; return `CURLE_OK` when it returns
///   `true`, else `CURLE_SSL_CERTPROBLEM`.
/// - Set `CURLOPT_SSL_VERIFYPEER = 1` (with `0` OpenSSL ignores the callback's verdict) and
///   `CURLOPT_SSL_VERIFYHOST = 0` (the policy checks the host). When ``requiresStapledOCSP`` is `true`,
///   set `CURLOPT_SSL_VERIFYSTATUS = 1`: libcurl then checks the stapled OCSP response after the handshake.
/// - Keep the bridge alive until every easy handle that used it is cleaned up and the multi handle is
///   cleaned up: connections in the multi's cache hold an `SSL_CTX` whose callback argument points at the
///   bridge (unretained).
/// - A reused connection or a resumed TLS session skips verification; never let a connection or TLS
///   session made under one policy serve a host under another.
/// - After a transfer fails with a TLS error (`CURLE_PEER_FAILED_VERIFICATION`, `CURLE_SSL_CONNECT_ERROR`),
///   read ``lastFailure`` to report ``CurlfireError/serverTrustEvaluationFailed(host:reason:)``.
///
/// The bridge never touches the `SSL_CTX`'s own certificate store, which libcurl shares between handles:
/// it verifies against its own anchors (the session's trusted roots, else the system roots parsed once
/// per process).
final class TLSTrustBridge: @unchecked Sendable {
    /// The host the policy is evaluated for.
    let host: String
    /// The policy; `nil` means default evaluation with host validation.
    let policy: ServerTrustPolicy?
    /// Whether the policy needs libcurl to require and check a stapled OCSP response.
    let requiresStapledOCSP: Bool

    private let anchorStore: TrustStore
    private let lock = NSLock()
    private var failure: CurlfireError.ServerTrustFailureReason?

    /// Creates a bridge.
    ///
    /// - Parameters:
    ///   - host:         the host name or IP address the session connects to.
    ///   - policy:       the host's policy; `nil` for default evaluation with host validation.
    ///   - trustedRoots: anchors replacing the system roots (the session's `trustedRootCertificates`);
    ///                   empty for the system roots.
    init(host: String, policy: ServerTrustPolicy?, trustedRoots: [Certificate]) {
        self.host = host
        self.policy = policy
        anchorStore = trustedRoots.isEmpty ? TrustStore.system : TrustStore(anchors: trustedRoots)
        if case let .performRevokedEvaluation(_, flags) = policy {
            requiresStapledOCSP = flags.contains(.requireStapledOCSP)
        } else {
            requiresStapledOCSP = false
        }
    }

    /// The reason the most recent handshake through this bridge was rejected; `nil` if it was accepted.
    var lastFailure: CurlfireError.ServerTrustFailureReason? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    /// Installs the verify callback on a new connection's `SSL_CTX`, replacing OpenSSL's own chain
    /// verification for that context. Call on the engine thread, from `CURLOPT_SSL_CTX_FUNCTION`.
    ///
    /// - Parameter ctx: the `SSL_CTX *` libcurl passed.
    /// - Returns: `true` once installed.
    func install(onSSLContext ctx: UnsafeMutableRawPointer) -> Bool {
        let context = OpaquePointer(ctx)
        SSL_CTX_set_cert_verify_callback(context, { storeContext, argument in
            guard let storeContext, let argument else { return 0 }
            let bridge = Unmanaged<TLSTrustBridge>.fromOpaque(argument).takeUnretainedValue()
            return bridge.verify(storeContext)
        }, Unmanaged.passUnretained(self).toOpaque())
        if requiresStapledOCSP {
            _ = cfssl_SSL_CTX_set_tlsext_status_type(context, TLSEXT_STATUSTYPE_ocsp)
        }
        return true
    }

    /// The verify callback's body: evaluates the presented chain and sets the store context's result.
    func verify(_ storeContext: OpaquePointer) -> Int32 {
        let outcome = evaluate(presentedChain(storeContext))
        lock.lock()
        failure = outcome.failure
        lock.unlock()
        if outcome.failure == nil {
            // libcurl re-reads the verify result after the handshake: clear any earlier error.
            X509_STORE_CTX_set_error(storeContext, X509_V_OK)
            return 1
        }
        X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
        return 0
    }

    /// Evaluates a presented chain (leaf first) for this bridge's host and policy.
    func evaluate(_ chain: [Certificate]) -> Result<Void, CurlfireError.ServerTrustFailureReason> {
        var trust = ServerTrust(certificates: chain)
        trust.anchorStore = anchorStore
        // With VERIFYSTATUS set, libcurl rejects the connection after the handshake if no good stapled
        // response arrived; in TLS 1.2 the response arrives after this callback runs.
        trust.stapledOCSPResponsePresent = requiresStapledOCSP
        let policy = policy ?? .performDefaultEvaluation(validateHost: true)
        return policy.evaluation(trust, forHost: host)
    }

    /// The leaf and the untrusted certificates the peer sent, leaf first, without repeating the leaf.
    private func presentedChain(_ storeContext: OpaquePointer) -> [Certificate] {
        guard let leaf = X509_STORE_CTX_get0_cert(storeContext) else { return [] }
        var chain: [Certificate] = []
        if let certificate = Certificate(handle: X509Handle(retaining: leaf)) { chain.append(certificate) }
        if let untrusted = X509_STORE_CTX_get0_untrusted(storeContext) {
            for index in 0..<cfssl_sk_X509_num(untrusted) {
                guard let x509 = cfssl_sk_X509_value(untrusted, index), x509 != leaf,
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
