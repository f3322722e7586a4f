/// A session's TLS protocol policies, indexed once: the session's own and those of
/// ``SessionConfiguration/tlsProtocolPolicies``, matched as ``ServerTrustPolicyManager`` matches its
/// keys (case-insensitive, a trailing dot ignored, an exact key before a one-label `*.` wildcard,
/// the host as the URL spells it).
struct TLSProtocolPolicyTable: Sendable {
    /// The session's policy, for hosts without one of their own.
    let sessionPolicy: TLSProtocolPolicy
    private let exact: [String: TLSProtocolPolicy]
    private let wildcards: [String: TLSProtocolPolicy] // keyed by the suffix after "*.", lowercased
    /// Whether every policy is usable (``TLSProtocolPolicy/unusableReason`` is `nil`): then no hop
    /// needs checking.
    let allUsable: Bool

    init(sessionPolicy: TLSProtocolPolicy, hostPolicies: [String: TLSProtocolPolicy]) {
        self.sessionPolicy = sessionPolicy
        var exact: [String: TLSProtocolPolicy] = [:]
        var wildcards: [String: TLSProtocolPolicy] = [:]
        // Sorted, so that of keys differing only in case the same one wins every time.
        for (key, policy) in hostPolicies.sorted(by: { $0.key < $1.key }) {
            let name = Self.normalized(key)
            if name.hasPrefix("*."), name.count > 2 {
                wildcards[String(name.dropFirst(2))] = policy
            } else {
                exact[name] = policy
            }
        }
        self.exact = exact
        self.wildcards = wildcards
        allUsable = sessionPolicy.unusableReason == nil && hostPolicies.values.allSatisfy { $0.unusableReason == nil }
    }

    /// The policy for a hop to `host`.
    func policy(forHost host: String) -> TLSProtocolPolicy {
        if exact.isEmpty, wildcards.isEmpty { return sessionPolicy }
        let name = Self.normalized(host)
        if let policy = exact[name] { return policy }
        if let dot = name.firstIndex(of: "."), dot != name.startIndex,
           let policy = wildcards[String(name[name.index(after: dot)...])] {
            return policy
        }
        return sessionPolicy
    }

    private static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        return name
    }
}
