import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The listening socket: `127.0.0.1`, a free port, close-on-exec. The accept thread owns it and
/// closes it when it ends.
struct Listener: Sendable {
    let fd: Int32
    let port: Int

    /// Opens, binds and listens; closes the socket again if a step fails.
    static func open() throws -> Listener {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MockServerError.socket(operation: "socket", errno: errno) }
        do {
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw MockServerError.socket(operation: "bind", errno: errno) }
            guard listen(fd, 128) == 0 else { throw MockServerError.socket(operation: "listen", errno: errno) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw MockServerError.socket(operation: "getsockname", errno: errno) }
            return Listener(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }
}

/// Small wrappers over the socket calls the server makes, retrying on `EINTR`.
enum Socket {
    /// A pipe whose ends are close-on-exec: `(read, write)`.
    static func pipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw MockServerError.socket(operation: "pipe", errno: errno) }
        setCloseOnExec(ends[0])
        setCloseOnExec(ends[1])
        return (ends[0], ends[1])
    }

    /// Waits until `listener` has a connection (`true`) or `wake` became readable or hung up (`false`).
    static func waitForConnection(listener: Int32, wake: Int32) -> Bool {
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if fds[1].revents != 0 { return false }
            if fds[0].revents & Int16(POLLIN) != 0 { return true }
            if fds[0].revents != 0 { return false }  // POLLERR / POLLHUP / POLLNVAL on the listener
        }
    }

    /// Accepts one connection (close-on-exec, `TCP_NODELAY`), or returns `nil` for a transient failure.
    static func accept(_ listener: Int32) -> Int32? {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        setCloseOnExec(fd)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Marks `fd` close-on-exec (`pipe2` and `accept4` are GNU extensions Swift does not import), so
    /// a subprocess a test starts does not inherit the server's sockets.
    static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }

    /// Reads up to `buffer.count` bytes; `0` at end of stream.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw MockServerError.socket(operation: "recv", errno: errno)
        }
    }

    /// Writes every byte of `bytes` (no `SIGPIPE`: `MSG_NOSIGNAL`).
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = send(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if count < 0 {
                if errno == EINTR { continue }
                throw MockServerError.socket(operation: "send", errno: errno)
            }
            offset += count
        }
    }
}
