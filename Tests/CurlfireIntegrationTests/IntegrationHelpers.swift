import Curlfire
import Foundation
import XCTest

/// Shared plumbing for the integration tests: server URLs and awaiting callback-style handlers.
enum Live {
    /// The running test servers (started on first use).
    static func servers() throws -> TestServerSet { try TestServers.shared() }

    /// `http://127.0.0.1:PORT/<path>` on the plain-HTTP httpbin.
    static func httpbin(_ path: String) throws -> String {
        try servers().httpbin.absoluteString + path
    }

    /// A marker unique to one test, to find its requests in an access log.
    static func marker(_ name: String = #function) -> String {
        "m\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// Awaits the callback of a response handler.
func awaitResponse<T>(_ attach: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
    let box = ResponseWaiter<T>()
    attach { box.fulfil($0) }
    return await box.value
}

/// A value delivered once by a callback and awaited by a test.
final class ResponseWaiter<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value_: T?
    private var continuation: CheckedContinuation<Box, Never>?

    /// Carries a non-Sendable response to the awaiting test; it is handed over once and not shared.
    private struct Box: @unchecked Sendable { let value: T }

    /// Whether a value was delivered.
    var isFulfilled: Bool { lock.withLock { value_ != nil || fulfilled } }
    private var fulfilled = false

    func fulfil(_ value: T) {
        lock.lock()
        fulfilled = true
        if let continuation {
            self.continuation = nil
            lock.unlock()
            continuation.resume(returning: Box(value: value))
        } else {
            value_ = value
            lock.unlock()
        }
    }

    var value: T {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Box, Never>) in
                lock.lock()
                if let value_ {
                    lock.unlock()
                    continuation.resume(returning: Box(value: value_))
                } else {
                    self.continuation = continuation
                    lock.unlock()
                }
            }.value
        }
    }
}

/// A JSON object from a response, or a test failure.
func jsonObject(_ response: DataResponse<Any>, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
    guard let object = response.value as? [String: Any] else {
        XCTFail("expected a JSON object, got \(response.debugDescription)", file: file, line: line)
        return [:]
    }
    return object
}

/// A thread-safe counter / recorder for callbacks.
final class Recorder<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
    /// Empties the recorder (a recorded closure that holds a request would otherwise keep it).
    func removeAll() { lock.withLock { items.removeAll() } }
}
