@testable import Curlfire
import Foundation
import FoundationNetworking
import XCTest

/// An executor with no libcurl: it keeps the attempts transfers hand it and records every command;
/// the test ends each attempt with a result it describes (a status, headers, a body, an ending),
/// through the engine's own completion path, `attempt.transfer.attemptDidFinish(_:)`.
///
/// Like the engine it ends attempts on one serial queue of its own (its "engine thread", which
/// ``isCurrentThread`` recognises), stops a cancelled transfer's attempts with
/// ``AttemptEnding/cancelled`` when it handles `.cancel`, and refuses everything once shut down.
/// `@unchecked Sendable`: `attempts`, `commands` and `isShutDown` are read and written only under
/// `condition`.
final class FakeEngine: AttemptExecuting, @unchecked Sendable {
    private let condition = NSCondition()
    /// Attempts handed over and not ended yet, oldest first.
    private var attempts: [CurlAttempt] = []
    /// The request of every attempt ever handed over, oldest first (not the attempts: they hold
    /// their transfer, which holds the session, which holds this fake).
    private var added: [URLRequest] = []
    private var commands: [String] = []
    private var isShutDown = false
    /// As the engine's: the highest epoch a `cancelStarted` command gave.
    private var cancelledBefore = 0
    /// When set, an `.add` waits for it (before taking the fake's lock) after signalling `arrived`:
    /// a test may then send other commands first (``holdAdds(arrived:release:)``).
    private var addGate: (arrived: DispatchSemaphore, release: DispatchSemaphore)?
    private let queue = DispatchQueue(label: "fake-engine")
    private let key = DispatchSpecificKey<Bool>()

    init() {
        queue.setSpecific(key: key, value: true)
    }

    /// A session whose attempts this fake runs.
    func session(configuration: SessionConfiguration = .default, eventMonitors: [any EventMonitor] = []) -> SessionManager {
        SessionManager(configuration: configuration, eventMonitors: eventMonitors, executor: self)
    }

    // MARK: - AttemptExecuting

    func enqueue(_ command: Engine.Command) -> Bool {
        if case .add = command, let gate = condition.withLock({ addGate }) {
            gate.arrived.signal()
            gate.release.wait()
        }
        condition.lock()
        guard !isShutDown else {
            condition.unlock()
            return false
        }
        switch command {
        case let .add(attempt):
            commands.append("add \(attempt.request.httpMethod ?? "GET") \(attempt.request.url?.absoluteString ?? "")")
            added.append(attempt.request)
            if attempt.transfer.isCancelFlagged {
                // As the engine: cancelled between being planned and being added, never started.
                condition.unlock()
                queue.async { attempt.transfer.attemptDidFinish(Self.result(for: attempt, ending: .cancelled)) }
                return true
            }
            attempts.append(attempt)
            if attempt.transfer.startedBefore(cancelledBefore) {
                let transfer = attempt.transfer // as the engine: started before a cancelAllRequests() it saw first
                DispatchQueue.global().async { transfer.cancel() }
            }
        case let .cancel(transfer):
            commands.append("cancel")
            let stopped = attempts.filter { $0.transfer === transfer }
            attempts.removeAll { $0.transfer === transfer }
            queue.async {
                for attempt in stopped { attempt.transfer.attemptDidFinish(Self.result(for: attempt, ending: .cancelled)) }
            }
        case .pause: commands.append("pause")
        case .unpause: commands.append("unpause")
        case .continueBody: commands.append("continueBody")
        case let .withShareHandle(body):
            commands.append("withShareHandle")
            queue.async { body(nil) } // no libcurl: as an engine that has no handle to lend
        case let .cancelStarted(before, then):
            commands.append("cancelStarted")
            cancelledBefore = max(cancelledBefore, before)
            let reached = Transfer.startedBefore(before, in: attempts) // the engine's own selection
            queue.async { then(reached) }
        }
        condition.broadcast()
        condition.unlock()
        return true
    }

    var isCurrentThread: Bool { DispatchQueue.getSpecific(key: key) == true }

    func shutdown() {
        let pending: [CurlAttempt] = condition.withLock {
            isShutDown = true
            defer { attempts.removeAll() }
            return attempts
        }
        let end = {
            for attempt in pending { attempt.transfer.attemptDidFinish(Self.result(for: attempt, ending: .sessionDeinitialized)) }
        }
        if isCurrentThread { end() } else { queue.sync(execute: end) }
    }

    /// Makes every later `.add` wait until `release` is signalled, after signalling `arrived`; `nil`
    /// semaphores stop holding them.
    func holdAdds(arrived: DispatchSemaphore?, release: DispatchSemaphore?) {
        condition.withLock {
            if let arrived, let release { addGate = (arrived, release) } else { addGate = nil }
        }
    }

    // MARK: - What the test sees

    /// The commands received so far ("add GET url", "cancel", "pause", …), in order.
    var log: [String] { condition.withLock { commands } }

    /// How many attempts were handed over so far.
    var attemptCount: Int { condition.withLock { added.count } }

    /// The request of every attempt handed over so far, oldest first.
    var sentRequests: [URLRequest] { condition.withLock { added } }

    /// The oldest attempt not ended yet, waiting up to `timeout` seconds for one; `nil` if none came.
    func nextAttempt(timeout: TimeInterval = 10) -> CurlAttempt? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while attempts.isEmpty {
            guard condition.wait(until: deadline) else { return nil }
        }
        return attempts.first
    }

    /// Waits up to `timeout` seconds until `predicate` holds for the log.
    @discardableResult
    func waitForLog(timeout: TimeInterval = 10, _ predicate: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(commands) {
            guard condition.wait(until: deadline) else { return predicate(commands) }
        }
        return true
    }

    // MARK: - Ending attempts

    /// Ends `attempt` with a response (its body written to the attempt's own sink), on the fake's
    /// queue, as the engine thread does; returns once the transfer has taken the result.
    func respond(_ attempt: CurlAttempt, status: Int, headers: KeyValuePairs<String, String> = [:], body: Data = Data(),
                 ending: AttemptEnding = .completed) {
        take(attempt)
        queue.sync {
            attempt.transfer.attemptDidFinish(Self.result(for: attempt, status: status, headers: headers, body: body,
                                                          ending: ending))
        }
    }

    /// Ends `attempt` without a response (a transport error, a timeout, …).
    func fail(_ attempt: CurlAttempt, with ending: AttemptEnding) {
        take(attempt)
        queue.sync { attempt.transfer.attemptDidFinish(Self.result(for: attempt, ending: ending)) }
    }

    private func take(_ attempt: CurlAttempt) {
        condition.withLock { attempts.removeAll { $0 === attempt } }
    }

    /// The result an attempt would produce with this response, made without libcurl: the head goes
    /// through ``ResponseHead`` and the sink's head observer, the body into the attempt's sink, as
    /// libcurl's header and write callbacks would deliver them.
    static func result(for attempt: CurlAttempt, status: Int? = nil, headers: KeyValuePairs<String, String> = [:],
                       body: Data = Data(), ending: AttemptEnding) -> AttemptResult {
        let now = Date.timeIntervalSinceReferenceDate
        var response: LazyResponse?
        if let status, let url = attempt.plan.head.url {
            var head = ResponseHead()
            var lines = ["HTTP/1.1 \(status) Fake\r\n"]
            lines += headers.map { "\($0.key): \($0.value)\r\n" }
            lines.append("\r\n")
            for line in lines {
                var bytes = Array(line.utf8)
                bytes.withUnsafeMutableBufferPointer { head.consume(UnsafeBufferPointer($0)) }
            }
            attempt.sink.prepare(expectedLength: headers.first { $0.key.lowercased() == "content-length" }
                .flatMap { Int64($0.value) })
            (attempt.sink as? ResponseHeadObserver)?.responseHeadDidComplete(head)
            if !body.isEmpty { _ = body.withUnsafeBytes { attempt.sink.write($0) } }
            response = LazyResponse(head: head, url: url)
        }
        return AttemptResult(head: attempt.plan.head, lazyResponse: response, sink: attempt.sink, ending: ending,
                             metrics: nil, startTime: attempt.startTime, initialResponseTime: now, completedTime: now,
                             uploadedBodyBytes: 0, stage: attempt.stage)
    }
}

/// A value written by one thread and awaited by the test.
final class Awaited<Value: Sendable>: @unchecked Sendable { // `value` under `condition`
    private let condition = NSCondition()
    private var value: Value?

    init() {}

    /// Sets the value (the first one wins) and wakes the waiter.
    func set(_ newValue: Value) {
        condition.withLock {
            if value == nil { value = newValue }
            condition.broadcast()
        }
    }

    /// The value, waiting up to `timeout` seconds for it.
    func wait(timeout: TimeInterval = 10) -> Value? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            guard condition.wait(until: deadline) else { return value }
        }
        return value
    }

    /// The value, waiting up to `timeout` seconds for it, and no longer held here. Use it for a held
    /// answer: a completion keeps its transfer (and so the session) alive, and this box is reachable
    /// from the session through the retrier or redirect handler that filled it — a retain cycle if kept.
    func take(timeout: TimeInterval = 10) -> Value? {
        let taken = wait(timeout: timeout)
        condition.withLock { value = nil }
        return taken
    }
}

/// A counter shared with closures that run on other threads (`@unchecked Sendable`: `items` under `lock`).
final class Recorder<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []

    init() {}

    /// Appends an item.
    func append(_ item: Item) { lock.withLock { items.append(item) } }

    /// Everything appended so far, in order.
    var all: [Item] { lock.withLock { items } }
}
