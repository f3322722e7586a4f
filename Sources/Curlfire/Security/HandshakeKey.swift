import Foundation
internal import COpenSSL

/// Carries a handshake's key (the bits of the easy handle making the connection) on the connection's
/// `SSL_CTX`, so OpenSSL's callbacks can tell which handshake they are running for.
///
/// libcurl 7.88 creates one `SSL_CTX` per connection and hands it to `CURLOPT_SSL_CTX_FUNCTION`, where
/// ``attach(_:to:)`` stores the key in the context's ex_data. The key is stored as pointer bits and only
/// ever read back as a number, never dereferenced.
enum HandshakeKey {
    /// Curlfire's ex_data slot on every `SSL_CTX`, allocated once per process.
    private static let index: Int32 = cfssl_SSL_CTX_get_ex_new_index()

    /// Stores `key` on `context`.
    ///
    /// - Parameters:
    ///   - key:     the handshake's key; `0` stores nothing a callback can read back.
    ///   - context: the `SSL_CTX *`.
    /// - Returns: whether the key was stored.
    static func attach(_ key: UInt, to context: OpaquePointer) -> Bool {
        guard index >= 0 else { return false }
        return SSL_CTX_set_ex_data(context, index, UnsafeMutableRawPointer(bitPattern: key)) == 1
    }

    /// The key of the handshake an `SSL *` belongs to; `nil` when none was attached.
    static func key(ofSSL ssl: OpaquePointer) -> UInt? {
        guard index >= 0, let context = SSL_get_SSL_CTX(ssl),
              let raw = SSL_CTX_get_ex_data(context, index) else { return nil }
        return UInt(bitPattern: raw)
    }

    /// The key of the handshake whose certificate verification `storeContext` is; `nil` when the store
    /// context belongs to no `SSL` (a verification outside a handshake) or no key was attached.
    static func key(ofStoreContext storeContext: OpaquePointer) -> UInt? {
        let sslIndex = SSL_get_ex_data_X509_STORE_CTX_idx()
        guard sslIndex >= 0, let ssl = X509_STORE_CTX_get_ex_data(storeContext, sslIndex) else { return nil }
        return key(ofSSL: OpaquePointer(ssl))
    }
}
