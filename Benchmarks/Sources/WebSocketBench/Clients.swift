import Curlfire
import Foundation
import NIOCore
import NIOPosix
import WebSocketKit

/// What one client does in the two measurements, over one connection each.
protocol WebSocketBenchClient: Sendable {
    /// Sequential echo round trips of a small text message for `seconds`: round trips per second.
    func roundTrips(url: String, seconds: TimeInterval) async throws -> Double
    /// `count` binary messages of `size` bytes sent while their echoes are received: MB/s of
    /// payload echoed (each byte counted once).
    func bulk(url: String, count: Int, size: Int) async throws -> Double
}

/// Curlfire's `webSocketRequest`.
struct CurlfireWebSocketClient: WebSocketBenchClient {
    let session = SessionManager()

    func roundTrips(url: String, seconds: TimeInterval) async throws -> Double {
        let socket = session.webSocketRequest(url)
        var iterator = socket.messages().makeAsyncIterator()
        let start = Date()
        var count = 0
        while Date().timeIntervalSince(start) < seconds {
            try await socket.send(.text("ping \(count)"))
            guard try await iterator.next() != nil else { throw BenchError("connection ended") }
            count += 1
        }
        let rate = Double(count) / Date().timeIntervalSince(start)
        socket.close()
        return rate
    }

    func bulk(url: String, count: Int, size: Int) async throws -> Double {
        var configuration = WebSocketConfiguration()
        configuration.maximumMessageSize = max(size, 1 << 20)
        configuration.maximumFrameSize = size
        let socket = session.webSocketRequest(url, configuration: configuration)
        var iterator = socket.messages().makeAsyncIterator()
        let block = Data(repeating: 0xA5, count: size)
        let start = Date()
        let sender = Task { for _ in 0..<count { try await socket.send(.binary(block)) } }
        var received = 0
        while received < count * size {
            guard let message = try await iterator.next() else { throw BenchError("connection ended") }
            received += message.byteCount
        }
        try await sender.value
        let seconds = Date().timeIntervalSince(start)
        socket.close()
        return Double(received) / seconds / 1e6
    }
}

/// vapor/websocket-kit on its own event loop group.
struct WebSocketKitClient: WebSocketBenchClient {
    let group: EventLoopGroup

    /// Connects; `onMessage` gets each message's byte count on the event loop.
    private func connect(_ url: String, maxFrameSize: Int, onMessage: @escaping @Sendable (WebSocket, Int) -> Void) async throws
        -> WebSocket {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocket, Error>) in
            WebSocket.connect(to: url, configuration: .init(maxFrameSize: maxFrameSize), on: group) { socket in
                socket.onText { socket, text in onMessage(socket, text.utf8.count) }
                socket.onBinary { socket, buffer in onMessage(socket, buffer.readableBytes) }
                continuation.resume(returning: socket)
            }.whenFailure { continuation.resume(throwing: $0) }
        }
    }

    func roundTrips(url: String, seconds: TimeInterval) async throws -> Double {
        let done = Waiter<Double>()
        let state = Counter(deadline: Date().addingTimeInterval(seconds))
        _ = try await connect(url, maxFrameSize: 1 << 14) { socket, _ in
            let count = state.increment()
            if Date() < state.deadline {
                socket.send("ping \(count)")
            } else {
                done.resume(Double(count) / Date().timeIntervalSince(state.start))
                _ = socket.close()
            }
        }.send("ping 0")
        return await done.value
    }

    func bulk(url: String, count: Int, size: Int) async throws -> Double {
        let done = Waiter<Double>()
        let state = Counter(deadline: .distantFuture)
        let total = count * size
        let socket = try await connect(url, maxFrameSize: size) { socket, bytes in
            if state.add(bytes) >= total {
                done.resume(Double(total) / Date().timeIntervalSince(state.start) / 1e6)
                _ = socket.close()
            }
        }
        let block = [UInt8](repeating: 0xA5, count: size)
        for _ in 0..<count { try await socket.send(block) }
        return await done.value
    }
}

/// A counter shared with event-loop callbacks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    let start = Date()
    let deadline: Date
    init(deadline: Date) { self.deadline = deadline }
    func increment() -> Int { add(1) }
    func add(_ amount: Int) -> Int { lock.withLock { value += amount; return value } }
}

/// A value delivered once from a callback.
final class Waiter<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: T?
    private var continuation: CheckedContinuation<T, Never>?

    func resume(_ value: T) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = value
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(returning: value)
    }

    var value: T {
        get async {
            await withCheckedContinuation { continuation in
                lock.lock()
                if let result {
                    lock.unlock()
                    continuation.resume(returning: result)
                } else {
                    self.continuation = continuation
                    lock.unlock()
                }
            }
        }
    }
}

/// A failed measurement.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
