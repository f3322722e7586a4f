import Foundation

/// Maps hosts to the ``ServerTrustPolicy`` used for them.
///
/// Keys are host names or IP addresses, compared case-insensitively, or wildcards such as
/// `"*.example.com"`, which match exactly one more label: `api.example.com`, but neither
/// `example.com` nor `a.b.example.com`. An exact key wins over a wildcard. The key is compared with
/// the host *as the URL spells it*: a policy under `"127.0.0.1"` does not apply to
/// `https://localhost/`, even though both reach the same server.
///
/// A host with no policy is evaluated as ``ServerTrustPolicy/performDefaultEvaluation(validateHost:)``
/// with `validateHost: true` — unless ``allHostsMustBeEvaluated`` is `true` (Alamofire 5's name):
/// then its TLS handshake fails with ``CurlfireError/serverTrustEvaluationFailed(host:reason:)`` and
/// ``CurlfireError/ServerTrustFailureReason/noPolicyForHost``, so a key that does not match the URL
/// fails loudly instead of quietly trusting the system roots.
///
/// Subclass and override ``serverTrustPolicy(forHost:)`` for other matching rules. The manager is
/// immutable after `init`. A session asks it once per host, outside its own lock and never on its
/// engine thread, so an override may read the session's settings or wait for a request of its own.
open class ServerTrustPolicyManager: @unchecked Sendable {
    /// The policies, keyed by host or wildcard pattern, as given.
    public let policies: [String: ServerTrustPolicy]
    /// Whether an HTTPS host without a policy fails its handshake with
    /// ``CurlfireError/ServerTrustFailureReason/noPolicyForHost`` instead of getting default
    /// evaluation. `false` by default (Alamofire 4's behaviour; Alamofire 5's `ServerTrustManager`
    /// defaults to `true`). Plain HTTP requests are not evaluated either way.
    public let allHostsMustBeEvaluated: Bool

    private let exact: [String: ServerTrustPolicy]
    private let wildcards: [String: ServerTrustPolicy]  // keyed by the suffix after "*.", lowercased

    /// Creates a manager that gives hosts without a policy default evaluation (Alamofire 4's behaviour).
    ///
    /// - Parameter policies: policies keyed by host (`"api.example.com"`, `"127.0.0.1"`) or wildcard
    ///                       (`"*.example.com"`), matched against the URL's host exactly. Of keys
    ///                       differing only in case, one is kept.
    public init(policies: [String: ServerTrustPolicy]) {
        self.policies = policies
        allHostsMustBeEvaluated = false
        let index = ServerTrustPolicyManager.index(policies)
        exact = index.exact
        wildcards = index.wildcards
    }

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - policies:                policies keyed by host (`"api.example.com"`, `"127.0.0.1"`) or
    ///                              wildcard (`"*.example.com"`), matched against the URL's host
    ///                              exactly. Of keys differing only in case, one is kept.
    ///   - allHostsMustBeEvaluated: whether an HTTPS host without a policy fails its handshake with
    ///                              ``CurlfireError/ServerTrustFailureReason/noPolicyForHost`` instead
    ///                              of getting default evaluation.
    public init(policies: [String: ServerTrustPolicy], allHostsMustBeEvaluated: Bool) {
        self.policies = policies
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        let index = ServerTrustPolicyManager.index(policies)
        exact = index.exact
        wildcards = index.wildcards
    }

    /// The exact keys and the wildcard suffixes, lowercased.
    private static func index(_ policies: [String: ServerTrustPolicy])
        -> (exact: [String: ServerTrustPolicy], wildcards: [String: ServerTrustPolicy]) {
        var exact: [String: ServerTrustPolicy] = [:]
        var wildcards: [String: ServerTrustPolicy] = [:]
        for (key, policy) in policies.sorted(by: { $0.key < $1.key }) {
            let lowered = normalized(key)
            if lowered.hasPrefix("*."), lowered.count > 2 {
                wildcards[String(lowered.dropFirst(2))] = policy
            } else {
                exact[lowered] = policy
            }
        }
        return (exact, wildcards)
    }

    /// The policy for a host: an exact key first, then a one-label wildcard.
    ///
    /// - Parameter host: the host name or IP address of the request's URL.
    /// - Returns: the policy, or `nil` when none applies (the session then uses default evaluation, or
    ///            fails the handshake when ``allHostsMustBeEvaluated`` is `true`).
    open func serverTrustPolicy(forHost host: String) -> ServerTrustPolicy? {
        let name = Self.normalized(host)
        if let policy = exact[name] { return policy }
        guard let dot = name.firstIndex(of: "."), dot != name.startIndex else { return nil }
        return wildcards[String(name[name.index(after: dot)...])]
    }

    /// The client identity presented to a host that asks for a certificate, chosen per hop (a
    /// redirect to another host presents that host's identity).
    ///
    /// - Parameter host: the host name or IP address of the hop's URL, lowercased.
    /// - Returns: the identity, or `nil` (the default) for the session's
    ///            ``SessionConfiguration/clientIdentity``.
    open func clientIdentity(forHost host: String) -> ClientIdentity? {
        nil
    }

    private static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        return name
    }
}
