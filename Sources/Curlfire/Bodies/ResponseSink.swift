import Foundation

/// Where a response body goes as libcurl delivers it. Engine thread only.
protocol ResponseSink: AnyObject {
    /// Takes one chunk; returns `false` to abort the transfer (a write failure).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Called when the final response's head is known, with its declared body length if any.
    func prepare(expectedLength: Int64?)
    /// Bytes taken so far.
    var byteCount: Int64 { get }
    /// Whether the body is written to a file: such an attempt reads through the session's
    /// `receiveBufferSize`, any other through at most libcurl's default (ReceiveBuffer.swift).
    var writesFile: Bool { get }
}

extension ResponseSink {
    /// Not a file: memory, a closure or a stream.
    var writesFile: Bool { false }
}

/// Accumulates the body in memory: the sink of data requests.
final class MemorySink: ResponseSink {
    /// Bodies above this size are not pre-allocated from Content-Length (a hostile header must not
    /// make us reserve gigabytes); they grow as bytes arrive.
    private static let maximumReservation: Int64 = 64 << 20
    @exclusivity(unchecked) private(set) var data = Data()

    var byteCount: Int64 { Int64(data.count) }

    func prepare(expectedLength: Int64?) {
        if let expectedLength, expectedLength > 0, expectedLength <= Self.maximumReservation, data.isEmpty {
            if expectedLength > Self.smallBody {
                // A new buffer rather than a larger one: growing the room ``reserveSmallBody()`` made
                // on another thread would take that thread's arena lock (ResultSpares.swift).
                data = Data(capacity: Int(expectedLength))
            } else {
                data.reserveCapacity(Int(expectedLength)) // nothing to do when the small room is there
            }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        data.append(bytes.bindMemory(to: UInt8.self))
        return true
    }

    /// Allocates room for a small body before the engine thread writes it: on the thread that
    /// starts the attempt, the one that usually frees the body (ResultSpares.swift). A larger body
    /// grows from it on the engine thread, as every body did.
    func reserveSmallBody() {
        if data.isEmpty { data = Data(capacity: Self.smallBody) }
    }

    /// The room ``reserveSmallBody()`` makes.
    static let smallBody = 512

    /// Moves the bytes out and leaves the sink empty: a pooled attempt's own sink
    /// (``CurlAttempt``) hands its body over this way and serves the attempt's next request.
    func takeData() -> Data {
        let taken = data
        data = Data()
        return taken
    }
}

/// Hands each chunk to a closure on a serial queue, in order, and keeps nothing: the sink of a data
/// request with `stream(closure:)` (Alamofire 4). Copies each chunk once (libcurl reuses its buffer).
final class ClosureSink: ResponseSink {
    private let queue: DispatchQueue
    private let closure: @Sendable (Data) -> Void
    private(set) var byteCount: Int64 = 0

    init(queue: DispatchQueue, closure: @escaping @Sendable (Data) -> Void) {
        self.queue = queue
        self.closure = closure
    }

    func prepare(expectedLength: Int64?) {}

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let chunk = Data(bytes)
        byteCount += Int64(chunk.count)
        let closure = closure
        queue.async { closure(chunk) }
        return true
    }
}

/// A sink that must see the final response's head before its body, and whose file may already
/// hold bytes from an earlier transfer (a resumed download's ``FileSink``). Engine thread only.
protocol ResponseHeadObserver: ResponseSink {
    /// Called each time a response head is complete (redirects and interim responses included: the
    /// last call before the body counts).
    func responseHeadDidComplete(_ head: ResponseHead)
    /// Bytes of the final body that were on disk before this attempt's first byte; progress adds it.
    var bytesBeforeBody: Int64 { get }
}
