import Foundation

extension CertificateTransparencyPolicy {
    /// The requirement for `host` in ``SessionConfiguration/certificateTransparencyPolicies``: an
    /// exact key first, then a one-label wildcard (`"*.example.com"`), names compared
    /// case-insensitively without a trailing dot — as ``ServerTrustPolicyManager`` matches hosts.
    static func policy(forHost host: String, in policies: [String: CertificateTransparencyPolicy])
        -> CertificateTransparencyPolicy? {
        guard !policies.isEmpty else { return nil }
        func normalized(_ name: String) -> String {
            var name = name.lowercased()
            if name.hasSuffix("."), name.count > 1 { name.removeLast() }
            return name
        }
        let name = normalized(host)
        var wildcard: CertificateTransparencyPolicy?
        for (key, policy) in policies.sorted(by: { $0.key < $1.key }) {
            let lowered = normalized(key)
            if lowered == name { return policy }
            if lowered.hasPrefix("*."), lowered.count > 2, let dot = name.firstIndex(of: "."), dot != name.startIndex,
               name[name.index(after: dot)...] == lowered.dropFirst(2) {
                wildcard = wildcard ?? policy
            }
        }
        return wildcard
    }
}
