import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP client for what Curlfire does not send on its own (a body chunked by hand, waiting for
/// `100 Continue`, a malformed request). Every read gives up after 5 seconds.
final class RawConnection {
    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until `marker` has arrived, the peer closes, or 5 seconds pass; returns all read so far.
    func read(until marker: String) -> String {
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while String(decoding: received, as: UTF8.self).range(of: marker) == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }
}
