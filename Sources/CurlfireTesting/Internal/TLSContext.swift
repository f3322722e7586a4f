import Foundation
internal import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// The server's `SSL_CTX` with its key and certificate, shared by every connection thread.
///
/// `@unchecked Sendable`: after `init` the context is only read (`SSL_new`), which OpenSSL allows
/// from several threads at once; it is freed in `deinit`, when no connection can still use it.
final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(identity: SelfSignedIdentity) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw MockServerError.tls("SSL_CTX_new: \(Self.errorText())")
        }
        pointer = context
        guard SSL_CTX_use_certificate(context, identity.x509.pointer) == 1,
              SSL_CTX_use_PrivateKey(context, identity.key.pointer) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            throw MockServerError.tls("loading the key and certificate: \(Self.errorText())")
        }
    }

    deinit { SSL_CTX_free(pointer) }

    /// OpenSSL's queued errors as text (and the queue cleared), or `"no OpenSSL error"`.
    static func errorText() -> String {
        var lines: [String] = []
        while case let code = ERR_get_error(), code != 0, lines.count < 8 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        ERR_clear_error()
        return lines.isEmpty ? "no OpenSSL error" : lines.joined(separator: "; ")
    }

    /// Ignores `SIGPIPE` for the process: OpenSSL writes with `write(2)`, and a client that hangs up
    /// mid-response would otherwise kill the test process.
    static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
