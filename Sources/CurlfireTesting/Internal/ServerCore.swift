import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The running server: the accept thread, the connection threads and the state they share.
///
/// `@unchecked Sendable`: every mutable property is read and written only while holding
/// `condition` (an `NSCondition`, whose lock it is). User code — the dispatcher — and socket I/O
/// never run under that lock. Each connection's socket is closed by its own thread after it has
/// been removed from `connections` under the lock, so `shutdown()` never touches a closed (and
/// possibly reused) descriptor.
final class ServerCore: @unchecked Sendable {
    /// How long `shutdown()` waits for the threads to finish.
    static let shutdownTimeout: TimeInterval = 5

    private let condition = NSCondition()
    private let threads = DispatchGroup()
    private let tls: TLSContext?
    private let dispatcher: (@Sendable (RecordedRequest) -> MockResponse)?

    // Guarded by `condition`.
    private var queue: [MockResponse] = []
    private var untaken: [RecordedRequest] = []
    private var received = 0
    private var connections: [Int: Int32] = [:]
    private var accepted = 0
    private var stopped = false
    private var wakeWrite: Int32

    init(listener: Listener, tls: TLSContext?, dispatcher: (@Sendable (RecordedRequest) -> MockResponse)?) throws {
        self.tls = tls
        self.dispatcher = dispatcher
        let wake: (read: Int32, write: Int32)
        do { wake = try Socket.pipe() } catch {
            close(listener.fd)
            throw error
        }
        wakeWrite = wake.write
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(listener: listener.fd, wake: wake.read)
            threads.leave()
        }
        thread.name = "curlfire-mock-accept"
        thread.start()
    }

    // MARK: - Queue and recorded requests

    func enqueue(_ response: MockResponse) {
        condition.withLock { queue.append(response) }
    }

    var requestCount: Int { condition.withLock { received } }
    var connectionCount: Int { condition.withLock { accepted } }

    func takeRequest(timeout: TimeInterval) -> RecordedRequest? {
        let deadline = Date(timeIntervalSinceNow: max(0, timeout))
        condition.lock()
        defer { condition.unlock() }
        while untaken.isEmpty && !stopped {
            if !condition.wait(until: deadline) { break }
        }
        return untaken.isEmpty ? nil : untaken.removeFirst()
    }

    /// Records a request and numbers it.
    func record(_ head: RequestHead, body: Data, connection: Int) -> RecordedRequest {
        condition.withLock {
            let request = RecordedRequest(method: head.method, path: head.target, httpVersion: head.version,
                                          headers: head.headers, body: body, connectionIndex: connection,
                                          sequenceNumber: received)
            received += 1
            untaken.append(request)
            condition.broadcast()
            return request
        }
    }

    /// The answer to `request`: the dispatcher's (called outside the lock), else the queue's head,
    /// else the documented 500.
    func response(for request: RecordedRequest) -> MockResponse {
        if let dispatcher { return dispatcher(request) }
        let next: MockResponse? = condition.withLock { queue.isEmpty ? nil : queue.removeFirst() }
        return next ?? .text("MockServer: no response enqueued for \(request.method) \(request.path) "
            + "(the queue is empty: call enqueue(_:) before the request, or use a dispatcher)\n", statusCode: 500)
    }

    /// Waits up to `seconds` (`.infinity`: until shutdown); `true` when the server shut down before
    /// or meanwhile.
    func waitOrStop(_ seconds: TimeInterval) -> Bool {
        // A year stands for "forever": NSCondition.wait(until:) traps on a date as far as distantFuture.
        let unbounded = seconds >= Self.forever
        let deadline = Date(timeIntervalSinceNow: min(seconds, Self.forever))
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if unbounded {
                condition.wait()
            } else if !condition.wait(until: deadline) {
                break
            }
        }
        return stopped
    }

    /// Waits at least this long count as waiting until shutdown.
    private static let forever: TimeInterval = 365 * 86_400

    // MARK: - Threads

    private func acceptLoop(listener: Int32, wake: Int32) {
        defer {
            close(listener)
            close(wake)
        }
        while Socket.waitForConnection(listener: listener, wake: wake) {
            guard let fd = Socket.accept(listener) else { continue }
            guard let index = register(fd) else {
                close(fd)
                return
            }
            let thread = Thread { [self] in
                serve(fd: fd, index: index)
                unregister(index, fd: fd)
                threads.leave()
            }
            thread.name = "curlfire-mock-connection-\(index)"
            thread.start()
        }
    }

    /// Numbers a new connection and counts its thread, or returns `nil` after shutdown.
    private func register(_ fd: Int32) -> Int? {
        condition.withLock {
            guard !stopped else { return nil }
            let index = accepted
            accepted += 1
            connections[index] = fd
            threads.enter()
            return index
        }
    }

    private func unregister(_ index: Int, fd: Int32) {
        condition.withLock { connections[index] = nil }
        close(fd)
    }

    private func serve(fd: Int32, index: Int) {
        let stream: ByteStream
        do {
            stream = try tls.map { try TLSStream(context: $0, fd: fd) } ?? PlainStream(fd: fd)
        } catch {
            return  // a failed handshake (a client that does not trust us, or shutdown): drop it
        }
        ConnectionHandler(core: self, stream: stream, index: index).run()
    }

    // MARK: - Shutdown

    func shutdown() {
        condition.withLock {
            guard !stopped else { return }
            stopped = true
            // Closing the pipe's only write end wakes the accept thread's poll (end of file). Not a
            // write: if the accept thread had already ended and closed the read end, a write would
            // raise SIGPIPE.
            close(wakeWrite)
            wakeWrite = -1
            for fd in connections.values { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
            condition.broadcast()
        }
        _ = threads.wait(timeout: .now() + Self.shutdownTimeout)
    }
}
