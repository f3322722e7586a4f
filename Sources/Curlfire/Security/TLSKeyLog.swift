import Foundation
internal import COpenSSL

/// A session's TLS key log (``SessionConfiguration/tlsKeyLogFile``): the file, opened once with
/// `O_APPEND` and mode 0600, and OpenSSL's key-log callback that appends each NSS key-log line.
///
/// `@unchecked Sendable`: its only state is the file descriptor, a constant; each line goes to the
/// file in one `write(2)` on an `O_APPEND` descriptor, so concurrent handshakes never interleave
/// inside a line. The descriptor is closed in `deinit`, after every plan holding the log is gone.
final class TLSKeyLog: @unchecked Sendable {
    /// The file, as configured.
    let path: String
    private let descriptor: Int32

    /// Curlfire's ex_data slot for the key log on a connection's `SSL_CTX`, allocated once per process.
    private static let index: Int32 = cfssl_SSL_CTX_get_ex_new_index()

    /// Opens (creating with mode 0600) `url` for appending.
    ///
    /// - Throws: ``CurlfireError/tlsKeyLogFileUnusable(path:error:)`` when it cannot be opened, or is not a file URL.
    init(url: URL) throws(CurlfireError) {
        path = url.path
        guard url.isFileURL else {
            throw .tlsKeyLogFileUnusable(path: url.absoluteString, error: POSIXError(.EINVAL))
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw .tlsKeyLogFileUnusable(path: path, error: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Installs the key-log callback on a new connection's `SSL_CTX` (libcurl makes one per connection).
    func install(on context: OpaquePointer) -> Bool {
        guard Self.index >= 0,
              SSL_CTX_set_ex_data(context, Self.index, Unmanaged.passUnretained(self).toOpaque()) == 1 else { return false }
        SSL_CTX_set_keylog_callback(context) { ssl, line in
            guard let ssl, let line, let context = SSL_get_SSL_CTX(ssl),
                  let raw = SSL_CTX_get_ex_data(context, TLSKeyLog.index) else { return }
            Unmanaged<TLSKeyLog>.fromOpaque(raw).takeUnretainedValue().append(line)
        }
        return true
    }

    /// Appends one line (OpenSSL gives it without the newline) in a single write.
    private func append(_ line: UnsafePointer<CChar>) {
        var bytes = Array(UnsafeBufferPointer(start: line, count: strlen(line)).map { UInt8(bitPattern: $0) })
        bytes.append(UInt8(ascii: "\n"))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

/// What a connection's `SSL_CTX` gets when key logging is on: the key log, then the host's trust
/// evaluation if it has one. Made per hop (so it is retained by the plan for the attempt's life).
final class KeyLoggingTLSContext: TLSContextConfiguring {
    /// The session's key log.
    let keyLog: TLSKeyLog
    /// The host's trust evaluation, `nil` when libcurl's own verification applies.
    let trust: (any TLSContextConfiguring)?

    init(keyLog: TLSKeyLog, trust: (any TLSContextConfiguring)?) {
        self.keyLog = keyLog
        self.trust = trust
    }

    func install(onSSLContext context: UnsafeMutableRawPointer, handshake: UInt) -> Bool {
        guard keyLog.install(on: OpaquePointer(context)) else { return false }
        return trust?.install(onSSLContext: context, handshake: handshake) ?? true
    }

    func takeFailure(forHandshake handshake: UInt) -> CurlfireError.ServerTrustFailureReason? {
        trust?.takeFailure(forHandshake: handshake)
    }
}
