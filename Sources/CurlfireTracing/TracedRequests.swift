#if Tracing
import Curlfire
import Dispatch
import Foundation
import FoundationNetworking
import Tracing

/// What ``TracingEventMonitor`` and its ``TracingAdapter`` share: per request (under
/// `Request.id`), the caller's context captured at creation and, once the request starts, its
/// client span.
///
/// The map's lock is held only to look up, insert and remove — never while calling the tracer.
/// Starting a span happens once per request inside that request's ``SpanCell``, whose lock only
/// the adapter and the monitor of that one request can contend for.
final class TracedRequests: Sendable {
    /// One request's tracing state.
    struct Entry {
        /// The caller's context when the request was created: the parent of the span.
        var parent: ServiceContext
        /// The client span, once the request started (first adapter call or first resume).
        let cell = SpanCell()
        /// When the entry was made (to forget requests that never start).
        var created: DispatchTime
        /// The last attempt's transport error, reported when the span ends.
        var lastError: CurlfireError?
    }

    /// Requests created but never started (replaced by a modifier, never resumed) are forgotten
    /// after this long, checked whenever more than `pruneThreshold` are held.
    private static let unstartedLifetime: UInt64 = 600 * 1_000_000_000
    private static let pruneThreshold = 256

    private let tracer: any Tracer
    private let entries = Locked<[UUID: Entry]>([:])

    init(tracer: any Tracer) { self.tracer = tracer }

    /// Records the caller's context for a new request (on the creating task).
    func created(_ request: any Request, parent: ServiceContext) {
        let now = DispatchTime.now()
        entries.withLock { entries in
            if entries.count > Self.pruneThreshold {
                // An entry made by another thread after `now` was read is younger than `now`: compared
                // by adding (a subtraction would underflow and trap with 257+ requests created at once).
                entries = entries.filter { _, entry in
                    entry.cell.isStarted || entry.created.uptimeNanoseconds + Self.unstartedLifetime > now.uptimeNanoseconds
                }
            }
            entries[request.id] = Entry(parent: parent, created: now, lastError: nil)
        }
    }

    /// The request's span, started now if it has not been (as a child of the creating context;
    /// of the top level for a request this monitor did not see created).
    func span(for request: any Request) -> any Span {
        let entry = entries.withLock { entries in
            if let entry = entries[request.id] { return entry }
            let entry = Entry(parent: .topLevel, created: .now(), lastError: nil)
            entries[request.id] = entry
            return entry
        }
        let tracer = tracer
        return entry.cell.span {
            let method = request.request?.httpMethod ?? "_OTHER"
            let span = tracer.startSpan(method, context: entry.parent, ofKind: .client, at: DefaultTracerClock.now)
            if let urlRequest = request.request {
                HTTPClientSpanAttributes.setRequestAttributes(of: urlRequest, on: span)
            }
            return span
        }
    }

    /// Notes the last attempt's transport error.
    func attemptEnded(_ request: any Request, error: CurlfireError?) {
        entries.withLock { entries in entries[request.id]?.lastError = error }
    }

    /// Forgets the request, returning its span (started now if it never was) and its last
    /// transport error.
    func finish(_ request: any Request) -> (span: any Span, error: CurlfireError?) {
        let span = span(for: request)
        let error = entries.withLock { $0.removeValue(forKey: request.id)?.lastError }
        return (span, error)
    }
}

/// A request's span, started at most once by whichever of the adapter and the monitor asks first.
final class SpanCell: Sendable {
    private let span = Locked<(any Span)?>(nil)

    /// Whether the span was started.
    var isStarted: Bool { span.withLock { $0 != nil } }

    /// The span, made by `start` (under this cell's lock) the first time.
    func span(_ start: () -> any Span) -> any Span {
        span.withLock { current in
            if let current { return current }
            let made = start()
            current = made
            return made
        }
    }
}

/// A value guarded by an `NSLock` (`Synchronization.Mutex`'s futex is invisible to ThreadSanitizer
/// on this toolchain, which then reports races on guarded state).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
#endif
