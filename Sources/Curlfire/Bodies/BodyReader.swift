import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a request body comes from. Files are streamed from disk, never read whole.
enum UploadBody: Sendable {
    /// No body.
    case none
    /// A body in memory.
    case data(Data)
    /// A body read from a file as it is sent; removed after the request when `removeAfterUpload`.
    case file(URL, removeAfterUpload: Bool)
    /// A body produced while it is sent (BodyStream.swift): one-shot, `Content-Length` when its
    /// length is known, chunked otherwise.
    case stream(BodyStream)

    /// The body's length in bytes, or `nil` when the file cannot be inspected or a stream's length is unknown.
    var length: Int64? {
        switch self {
        case .none: return 0
        case let .data(data): return Int64(data.count)
        case let .file(url, _):
            var info = stat()
            guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return Int64(info.st_size)
        case let .stream(stream):
            return stream.length
        }
    }

    var isEmpty: Bool { if case .none = self { return true } else { return false } }

    /// The stream, when the body is one.
    var stream: BodyStream? { if case let .stream(stream) = self { return stream } else { return nil } }
}

/// Streams an ``UploadBody`` into libcurl's read callback and rewinds it on libcurl's request
/// (redirects with 307/308, authentication retries). Engine thread only.
final class BodyReader {
    /// The body, for an attempt that is sent again (UnprocessedStreamReplay).
    let body: UploadBody
    private var offset = 0
    private var fd: Int32 = -1
    /// The first read error, reported as the transfer's error.
    private(set) var failure: CurlfireError?

    init(_ body: UploadBody) { self.body = body }

    /// The reader of every attempt that sends no body, shared rather than made per attempt: no
    /// method changes a reader of `.none` (it opens no file, reads 0 bytes, seeks only to 0, has no
    /// failure), so engine threads of several sessions may use it at once. `nonisolated(unsafe)`
    /// for that reason: nothing is ever written to it.
    private nonisolated(unsafe) static let bodiless = BodyReader(.none)

    /// A reader for `body`: the shared one when there is no body.
    static func make(_ body: UploadBody) -> BodyReader {
        body.isEmpty ? bodiless : BodyReader(body)
    }

    /// Whether there is a body at all (an empty `Data` still counts as one).
    var hasBody: Bool { !body.isEmpty }

    deinit { if fd >= 0 { close(fd) } }

    /// Opens the file, or starts a stream's producer (`wake` continues the paused transfer when
    /// its bytes arrive); returns the error when it cannot (a stream already read: not replayable).
    ///
    /// `wake` is made only for a stream: for any other body (every plain request) it would be a
    /// closure context, and a weak reference's side table on the transfer, per attempt for nothing.
    func open(wake: @autoclosure () -> @Sendable () -> Void) -> CurlfireError? {
        if case let .stream(stream) = body {
            failure = stream.begin(wake: wake())
            return failure
        }
        guard case let .file(url, _) = body else { return nil }
        fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            failure = .uploadableReadFailed(path: url.path, message: String(cString: strerror(errno)))
        }
        return failure
    }

    /// Copies up to `capacity` bytes into `buffer`; 0 at the end; -1 on error; `nil` when a
    /// stream has nothing buffered yet (the transfer pauses until its producer wakes it).
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        switch body {
        case let .stream(stream):
            switch stream.read(into: buffer, capacity: capacity) {
            case let .bytes(count): return count
            case .end: return 0
            case .wait: return nil
            case let .failed(error):
                failure = error
                return -1
            }
        case .none:
            return 0
        case let .data(data):
            let count = min(capacity, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            }
            offset += count
            return count
        case let .file(url, _):
            while true {
                let count = Glibc.read(fd, buffer, capacity)
                if count >= 0 { return count }
                if errno == EINTR { continue }
                failure = .uploadableReadFailed(path: url.path, message: String(cString: strerror(errno)))
                return -1
            }
        }
    }

    /// Moves the read position to `position` from the start; `false` when impossible.
    func seek(to position: Int64) -> Bool {
        switch body {
        case .none:
            return position == 0
        case let .data(data):
            guard position >= 0, position <= Int64(data.count) else { return false }
            offset = Int(position)
            return true
        case .file:
            return lseek(fd, off_t(position), SEEK_SET) == off_t(position)
        case let .stream(stream):
            if stream.canRewind(to: position) { return true }
            failure = .bodyStreamFailed(reason: .notReplayable)
            return false
        }
    }

    /// Closes the file. The transfer removes a temporary upload file when it ends (a retry reads it again).
    func finish() {
        if fd >= 0 { close(fd); fd = -1 }
        // A stream is one-shot: whatever ended the attempt, its producer stops.
        body.stream?.cancel()
    }
}
