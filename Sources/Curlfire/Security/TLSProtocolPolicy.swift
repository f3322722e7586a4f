/// A TLS protocol version a ``TLSProtocolPolicy`` may allow. Versions older than TLS 1.2 are not
/// offered: they cannot be asked for.
public enum TLSVersion: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// TLS 1.2 (RFC 5246).
    case v1_2 = 12
    /// TLS 1.3 (RFC 8446).
    case v1_3 = 13

    /// Whether `lhs` is older than `rhs`.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `"TLS 1.2"` or `"TLS 1.3"`.
    public var description: String { self == .v1_2 ? "TLS 1.2" : "TLS 1.3" }
}

/// Which TLS versions, cipher suites and key-exchange groups a session's handshakes may use.
///
/// Set one for the whole session as ``SessionConfiguration/tlsProtocolPolicy`` and, for some hosts,
/// others in ``SessionConfiguration/tlsProtocolPolicies``. Each hop of a request (a redirect
/// included) uses the policy of its own host. A server that offers nothing the policy allows fails
/// in the handshake, before any byte of the request is sent, with
/// ``TransportErrorCode/tlsProtocolRefused(_:)`` naming what was refused; what was negotiated is in
/// ``TransferMetrics/tlsVersion``, ``TransferMetrics/tlsCipher`` and ``TransferMetrics/tlsGroup``.
///
/// The strings are OpenSSL's, as `openssl ciphers` and curl's `--ciphers`, `--tls13-ciphers` and
/// `--curves` take them. A list OpenSSL cannot use at all fails the request with
/// ``TransportErrorCode/tlsHandshakeFailed`` and OpenSSL's message. The policy applies to the
/// origin's TLS, not to an HTTPS proxy's.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.tlsProtocolPolicy = TLSProtocolPolicy(minimumVersion: .v1_3)
/// configuration.tlsProtocolPolicies["legacy.example.com"] =
///     TLSProtocolPolicy(maximumVersion: .v1_2, cipherList: "ECDHE-ECDSA-AES128-GCM-SHA256")
/// ```
public struct TLSProtocolPolicy: Sendable, Hashable {
    /// The oldest version offered. ``TLSVersion/v1_2`` by default.
    public var minimumVersion: TLSVersion
    /// The newest version offered; `nil` (the default) for the newest OpenSSL supports (TLS 1.3).
    public var maximumVersion: TLSVersion?
    /// The TLS 1.2 cipher suites offered, in OpenSSL's cipher-list syntax
    /// (`"ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384"`); `nil` (the default) for
    /// OpenSSL's default list. Does not restrict TLS 1.3 suites (see ``tls13CipherSuites``).
    public var cipherList: String?
    /// The TLS 1.3 cipher suites offered, colon-separated (`"TLS_AES_256_GCM_SHA384"`); `nil` (the
    /// default) for OpenSSL's default suites.
    public var tls13CipherSuites: String?
    /// The key-exchange groups offered, most preferred first (`["X25519", "P-256"]`); `nil` (the
    /// default) for OpenSSL's defaults.
    public var groups: [String]?

    /// Creates a policy; every argument left out keeps OpenSSL's default, except the minimum version,
    /// which is TLS 1.2.
    ///
    /// - Parameters:
    ///   - minimumVersion:    the oldest version offered. ``TLSVersion/v1_2`` by default.
    ///   - maximumVersion:    the newest version offered. `nil` by default: TLS 1.3.
    ///   - cipherList:        TLS 1.2 cipher suites in OpenSSL's syntax. `nil` by default.
    ///   - tls13CipherSuites: TLS 1.3 cipher suites, colon-separated. `nil` by default.
    ///   - groups:            key-exchange groups, most preferred first. `nil` by default.
    public init(minimumVersion: TLSVersion = .v1_2, maximumVersion: TLSVersion? = nil, cipherList: String? = nil,
                tls13CipherSuites: String? = nil, groups: [String]? = nil) {
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.cipherList = cipherList
        self.tls13CipherSuites = tls13CipherSuites
        self.groups = groups
    }

    /// TLS 1.2 and 1.3 with OpenSSL's default suites and groups: what a session uses unless told otherwise.
    public static let `default` = TLSProtocolPolicy()

    /// The newest version the policy allows.
    var effectiveMaximumVersion: TLSVersion { maximumVersion ?? .v1_3 }

    /// Whether the policy restricts the cipher suites of any version it allows.
    var restrictsCipherSuites: Bool {
        (cipherList != nil && minimumVersion <= .v1_2) || (tls13CipherSuites != nil && effectiveMaximumVersion >= .v1_3)
    }

    /// Why the policy cannot be used at all, or `nil`: no version between its minimum and maximum,
    /// an empty list, or a list with a control character (which libcurl would cut short).
    var unusableReason: (refusal: TLSProtocolRefusal, message: String)? {
        if effectiveMaximumVersion < minimumVersion {
            return (.version(minimum: minimumVersion, maximum: effectiveMaximumVersion),
                    "no TLS version is left between the minimum \(minimumVersion) and the maximum \(effectiveMaximumVersion)")
        }
        for (name, value) in [("cipherList", cipherList), ("tls13CipherSuites", tls13CipherSuites)] {
            guard let value else { continue }
            if !Self.isUsableList(value) {
                return (.cipherSuites(cipherList: cipherList, tls13CipherSuites: tls13CipherSuites),
                        "the \(name) \(value.debugDescription) is empty or holds a control character")
            }
        }
        if let groups, groups.isEmpty || groups.contains(where: { !Self.isUsableList($0) || $0.contains(":") }) {
            return (.groups(groups), "the groups \(groups) are empty or hold an empty name, a colon or a control character")
        }
        return nil
    }

    /// Whether a list is non-empty and free of control characters.
    private static func isUsableList(_ value: String) -> Bool {
        !value.isEmpty && !value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
