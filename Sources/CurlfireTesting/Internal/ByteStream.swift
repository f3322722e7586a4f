import Foundation
internal import COpenSSL

/// The bytes of one accepted connection, plain or TLS. Used only by the connection's own thread;
/// the socket itself is closed by the server core, not here.
protocol ByteStream: AnyObject {
    /// Reads up to `buffer.count` bytes; `0` at end of stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Writes every byte of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Ends the stream politely (a TLS close_notify); errors are ignored.
    func finish()
}

extension ByteStream {
    /// Writes a string's UTF-8 bytes.
    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
}

/// A plain TCP connection.
final class PlainStream: ByteStream {
    private let fd: Int32

    init(fd: Int32) { self.fd = fd }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try Socket.read(fd, into: buffer) }
    func write(_ bytes: UnsafeRawBufferPointer) throws { try Socket.write(fd, bytes) }
    func finish() {}
}

/// A TLS connection: OpenSSL's `SSL` over the accepted socket, owned (and freed) by this object.
final class TLSStream: ByteStream {
    private let ssl: OpaquePointer

    /// Runs the server side of the handshake on `fd`.
    init(context: TLSContext, fd: Int32) throws {
        guard let ssl = SSL_new(context.pointer) else { throw MockServerError.tls("SSL_new: \(TLSContext.errorText())") }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else { throw MockServerError.tls("SSL_set_fd: \(TLSContext.errorText())") }
        let accepted = SSL_accept(ssl)
        guard accepted == 1 else {
            throw MockServerError.tls("SSL_accept (\(SSL_get_error(ssl, accepted))): \(TLSContext.errorText())")
        }
    }

    deinit { SSL_free(ssl) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return Int(count) }
        let reason = SSL_get_error(ssl, count)
        if reason == SSL_ERROR_ZERO_RETURN { return 0 }
        ERR_clear_error()
        throw MockServerError.tls("SSL_read: error \(reason)")
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let length = Int32(clamping: bytes.count - offset)
            let count = SSL_write(ssl, bytes.baseAddress.map { $0 + offset }, length)
            guard count > 0 else {
                let reason = SSL_get_error(ssl, count)
                ERR_clear_error()
                throw MockServerError.tls("SSL_write: error \(reason)")
            }
            offset += Int(count)
        }
    }

    func finish() {
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }
}
