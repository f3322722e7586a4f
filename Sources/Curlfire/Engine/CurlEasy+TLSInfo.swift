internal import CCurl
internal import COpenSSL

/// What a TLS connection negotiated, for ``TransferMetrics``.
struct NegotiatedTLS: Sendable {
    /// `"TLSv1.3"`, …
    var version: String?
    /// The cipher suite, as OpenSSL names it.
    var cipher: String?
    /// The key-exchange group, as OpenSSL names it (`"x25519"`); `nil` when none was used.
    var group: String?
}

extension CurlInfo {
    /// What the easy handle's current TLS connection negotiated; empty when it has none (plain HTTP,
    /// or a TLS backend other than OpenSSL). Read while the connection is alive (after the handshake).
    static func negotiatedTLS(_ easy: UnsafeMutableRawPointer) -> NegotiatedTLS {
        var result = NegotiatedTLS()
        var raw: UnsafeMutableRawPointer?
        guard cfcurl_easy_getinfo_ptr(easy, CURLINFO_TLS_SSL_PTR, &raw) == CURLE_OK,
              let info = raw?.assumingMemoryBound(to: curl_tlssessioninfo.self),
              info.pointee.backend == CURLSSLBACKEND_OPENSSL, let ssl = info.pointee.internals
        else { return result }
        let pointer = OpaquePointer(ssl)
        if let version = SSL_get_version(pointer) { result.version = String(cString: version) }
        if let cipher = SSL_get_current_cipher(pointer), let name = SSL_CIPHER_get_name(cipher) {
            result.cipher = String(cString: name)
        }
        // SSL_get_negotiated_group is a macro over SSL_ctrl; 0 when no group was used (RSA key exchange).
        let group = Int32(truncatingIfNeeded: SSL_ctrl(pointer, SSL_CTRL_GET_NEGOTIATED_GROUP, 0, nil))
        if group != 0, let name = SSL_group_to_name(pointer, group) { result.group = String(cString: name) }
        return result
    }
}
