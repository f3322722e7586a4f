import Foundation
import FoundationNetworking

// HSTS (RFC 6797) in the per-hop flow: the hop's URL is upgraded before it is planned, and a
// response's Strict-Transport-Security header is learned when the attempt ends. A session without
// an HSTSStore pays one nil check per hop for each.

extension Transfer {
    /// Replaces the hop's `http://` URL by its `https://` form when its host is a known HSTS host:
    /// for the first hop and every redirect hop (and retry), before anything is planned, so no byte
    /// goes to the plain-HTTP port. The hop is the `startAttempt` action's own copy.
    func upgradeForHSTS(_ hop: inout NextHop, store: HSTSStore) {
        guard let url = hop.head.url, let upgraded = store.upgradedURL(for: url) else { return }
        hop.head.url = upgraded
    }

    /// Teaches the store the attempt's `Strict-Transport-Security` header, when the response came
    /// over HTTPS from a server whose trust was evaluated with chain and host validation.
    func learnHSTS(from result: AttemptResult, store: HSTSStore) {
        guard let response = result.lazyResponse, result.head.url?.scheme?.lowercased() == "https",
              let value = response.headerValue("Strict-Transport-Security"),
              let host = result.head.url?.host else { return }
        // The bridge was resolved when the hop was planned: this reads the session's cache.
        let trust = session.trustConfigurator(forHost: host)
        guard Self.trustCountsForHSTS(trust) else { return }
        store.receive(headerValue: value, fromHost: host)
    }

    /// Whether a hop trusted this way may set HSTS: libcurl's own verification (no bridge: system or
    /// default roots, host checked), or a policy that validates the chain and the host.
    static func trustCountsForHSTS(_ trust: (any TLSContextConfiguring)?) -> Bool {
        guard let trust else { return true }
        guard let bridge = trust as? TLSTrustBridge else { return false }
        guard let policy = bridge.policy else { return !bridge.policyRequired }
        return policy.validatesChainAndHost
    }
}

extension ServerTrustPolicy {
    /// Whether the policy checks both the certificate chain and the host name (HSTS is learned
    /// only from such servers).
    var validatesChainAndHost: Bool {
        switch self {
        case let .performDefaultEvaluation(validateHost), let .performRevokedEvaluation(validateHost, _):
            return validateHost
        case let .pinCertificates(_, chain, host), let .pinPublicKeys(_, chain, host):
            return chain && host
        case .disableEvaluation, .customEvaluation:
            return false
        }
    }
}
