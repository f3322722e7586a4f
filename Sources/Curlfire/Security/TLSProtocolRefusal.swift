/// What a handshake refused under a ``TLSProtocolPolicy``: the reason carried by
/// ``TransportErrorCode/tlsProtocolRefused(_:)``.
public enum TLSProtocolRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The server spoke no TLS version between `minimum` and `maximum` (it answered with a
    /// `protocol_version` alert, or chose a version outside the range), or the range is empty.
    case version(minimum: TLSVersion, maximum: TLSVersion)
    /// The server accepted none of the cipher suites the policy offers (the lists as configured;
    /// `nil`: OpenSSL's default list for that version).
    case cipherSuites(cipherList: String?, tls13CipherSuites: String?)
    /// The server shares none of the key-exchange groups the policy offers.
    case groups([String])
    /// The server refused the handshake (a `handshake_failure` alert) while the policy restricts both
    /// cipher suites and groups: the alert does not say which of the two it lacked.
    case cipherSuitesOrGroups(cipherList: String?, tls13CipherSuites: String?, groups: [String])

    /// What was refused, in a sentence fragment: `"no TLS version between TLS 1.3 and TLS 1.3"`.
    public var description: String {
        switch self {
        case let .version(minimum, maximum):
            return minimum == maximum ? "no \(minimum)" : "no TLS version between \(minimum) and \(maximum)"
        case let .cipherSuites(cipherList, tls13CipherSuites):
            return "none of the cipher suites " + Self.suites(cipherList, tls13CipherSuites)
        case let .groups(groups):
            return "none of the groups \(groups.joined(separator: ":"))"
        case let .cipherSuitesOrGroups(cipherList, tls13CipherSuites, groups):
            return "none of the cipher suites \(Self.suites(cipherList, tls13CipherSuites)) or of the groups "
                + groups.joined(separator: ":")
        }
    }

    private static func suites(_ cipherList: String?, _ tls13CipherSuites: String?) -> String {
        [cipherList.map { "\($0) (TLS 1.2)" }, tls13CipherSuites.map { "\($0) (TLS 1.3)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// What a failed handshake refused under `policy`, from OpenSSL's message as libcurl reports it
    /// (`CURLE_SSL_CONNECT_ERROR`), or `nil` when the failure is not about the policy.
    ///
    /// A `protocol_version` alert (either side) is the version range. A `handshake_failure` alert —
    /// what OpenSSL and most servers send when no suite or group is shared — is attributed to what
    /// the policy restricts; with neither restricted it is not the policy's doing (a server demanding
    /// a client certificate over TLS 1.2 sends the same alert).
    init?(handshakeMessage message: String, policy: TLSProtocolPolicy) {
        let text = message.lowercased()
        let versionMarkers = ["alert protocol version", "unsupported protocol", "version too low", "version too high",
                              "no protocols available", "wrong ssl version"]
        if versionMarkers.contains(where: text.contains) {
            self = .version(minimum: policy.minimumVersion, maximum: policy.effectiveMaximumVersion)
            return
        }
        let groups = policy.groups ?? []
        if text.contains("wrong curve"), !groups.isEmpty {
            self = .groups(groups)
            return
        }
        let noCipher = text.contains("no ciphers available") || text.contains("no cipher match")
            || text.contains("no shared cipher")
        guard noCipher || text.contains("alert handshake failure") || text.contains("alert insufficient security")
        else { return nil }
        switch (policy.restrictsCipherSuites, !groups.isEmpty) {
        case (true, true) where noCipher, (true, false):
            self = .cipherSuites(cipherList: policy.cipherList, tls13CipherSuites: policy.tls13CipherSuites)
        case (true, true):
            self = .cipherSuitesOrGroups(cipherList: policy.cipherList, tls13CipherSuites: policy.tls13CipherSuites,
                                         groups: groups)
        case (false, true):
            self = .groups(groups)
        case (false, false):
            return nil
        }
    }
}
