import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A download's files once its transfer is over: what ``DefaultDownloadResponse`` reports.
struct DownloadFiles: Sendable {
    /// Where the body was written (kept when no destination was given, when moving failed, or with resume data).
    var temporaryURL: URL?
    /// Where the body was moved.
    var destinationURL: URL?
    /// Resume data, after a cancellation or a failure that left resumable bytes.
    var resumeData: Data?
}

/// Writes a download's body straight to a file with POSIX `pwrite` as libcurl delivers it: nothing
/// is kept in memory. Created per attempt by the download's `Transfer.Definition.makeSink`.
///
/// A fresh download writes a new file from byte 0. A resumed one (``Plan/resumeOffset`` > 0) looks
/// at the final response head before writing anything:
/// - `206 Partial Content` whose `Content-Range` starts at or before the bytes on disk: the file is
///   cut there and the body appended;
/// - `200 OK` (the server ignored `Range`, or `If-Range` found the entity changed): the file is
///   emptied and the whole body written from byte 0;
/// - `416 Range Not Satisfiable`, or a `Content-Range` past the bytes on disk: the attempt fails with
///   ``CurlfireError/invalidResumeData(reason:)``, the partial file untouched;
/// - any other status (an error page): the body goes to a new file, the partial file untouched, so
///   the same resume data can be tried again later.
///
/// Engine thread while the attempt runs; afterwards its transfer's completion path owns it
/// (``close()``, ``resumeData(for:response:)``).
final class FileSink: ResponseSink, FailableSink, ResponseHeadObserver {
    /// What a download attempt starts from.
    struct Plan: Sendable {
        /// The file to write (a new one for a fresh download; the partial file when resuming).
        var fileURL: URL
        /// Bytes of the partial file to keep (0 for a fresh download).
        var resumeOffset: Int64 = 0
        /// Validators of the entity the partial file holds, from the resume data.
        var validators: ResumeValidators = ResumeValidators()
        /// The entity's full length, when the resume data knows it.
        var totalBytes: Int64?
        /// The original request's URL, method and headers, carried into new resume data.
        var resumeRequest: DownloadResumeData.RequestInfo?
    }

    /// How this attempt's body lands in the file.
    private enum Decision {
        /// No head yet.
        case pending
        /// Write the body from `offset`, cutting the file there first.
        case write(offset: Int64)
        /// Refuse the body (416, a bad `Content-Range`): the failure is set.
        case refuse
    }

    private let plan: Plan
    /// A download to a file reads through the session's `receiveBufferSize` (ReceiveBuffer.swift).
    var writesFile: Bool { true }
    /// The file written (changes when a resumed attempt's error page goes to a new file).
    private(set) var fileURL: URL
    private var fd: Int32 = -1
    private var decision: Decision = .pending
    private var positioned = false
    private var written: Int64 = 0
    /// Where this attempt's body starts in the file.
    private var startOffset: Int64
    /// Whether the file is the resume data's partial file (kept, never deleted on failure, unless rewritten).
    private(set) var holdsPartialOfEarlierTransfer: Bool
    /// The last response head's status and validators.
    private(set) var statusCode = 0
    private var headValidators = ResumeValidators()
    private var contentEncoding: String?
    private var entityLength: Int64?
    /// Why the sink refused or failed (a write error, a refused range).
    private(set) var failure: CurlfireError?
    private var kept = false

    init(plan: Plan) {
        self.plan = plan
        fileURL = plan.fileURL
        startOffset = plan.resumeOffset
        holdsPartialOfEarlierTransfer = plan.resumeOffset > 0
        entityLength = plan.totalBytes
    }

    /// Removes the file unless the download's completion path kept it: an attempt dropped for a
    /// retry leaves nothing behind. A resumed download's partial file is never removed here.
    deinit {
        if fd >= 0 { Glibc.close(fd) }
        if !kept, positioned, !holdsPartialOfEarlierTransfer { unlink(fileURL.path) }
    }

    /// Marks the file as handed over (kept, moved or reported): `deinit` leaves it alone.
    func keepFile() { kept = true }

    /// Bytes the file holds for this download: those kept from before plus this attempt's.
    var byteCount: Int64 { startOffset + written }
    var bytesBeforeBody: Int64 { startOffset }

    func prepare(expectedLength: Int64?) {}

    // MARK: - Engine thread

    func responseHeadDidComplete(_ head: ResponseHead) {
        statusCode = head.statusCode
        written = 0
        positioned = false
        failure = nil
        contentEncoding = head.value(for: "Content-Encoding")
        headValidators = ResumeValidators(entityTag: head.value(for: "ETag"), lastModified: head.value(for: "Last-Modified"))
        let length = head.value(for: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        guard plan.resumeOffset > 0 else {
            startOffset = 0
            entityLength = length
            decision = .write(offset: 0)
            return
        }
        switch head.statusCode {
        case 206:
            guard let range = ContentRange(head.value(for: "Content-Range") ?? ""), let first = range.first else {
                refuse("the server answered 206 without a usable Content-Range")
                return
            }
            guard first <= plan.resumeOffset else {
                refuse("the server resumed at byte \(first), after the \(plan.resumeOffset) bytes on disk")
                return
            }
            startOffset = first
            entityLength = range.completeLength
            decision = .write(offset: first)
        case 200:
            // The server ignored the range or the entity changed (If-Range): start over in the same file.
            startOffset = 0
            entityLength = length
            holdsPartialOfEarlierTransfer = false
            decision = .write(offset: 0)
        case 416:
            let total = ContentRange(head.value(for: "Content-Range") ?? "")?.completeLength
            refuse("the server cannot send bytes from \(plan.resumeOffset) on (416 Range Not Satisfiable"
                   + (total.map { "; its length is \($0))" } ?? ")"))
        default:
            // An error page: keep the partial file for a later try, write this body to a new file.
            fileURL = DownloadLocations.newTemporaryFile()
            startOffset = 0
            entityLength = length
            holdsPartialOfEarlierTransfer = false
            decision = .write(offset: 0)
        }
    }

    private func refuse(_ reason: String) {
        decision = .refuse
        failure = .invalidResumeData(reason: reason)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if case .pending = decision { decision = .write(offset: startOffset) } // a body without a head (HTTP/0.9)
        guard case .write = decision, failure == nil else { return false }
        if !positioned, !position() { return false }
        var done = 0
        while done < bytes.count {
            let count = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(startOffset + written))
            if count < 0 {
                if errno == EINTR { continue }
                fail(errno, "writing")
                return false
            }
            done += count
            written += Int64(count)
        }
        return true
    }

    /// Opens the file and cuts it at the start offset. `false` (with `failure` set) when impossible.
    private func position() -> Bool {
        if fd < 0 {
            // A resumed attempt writing into its partial file needs it to exist; otherwise create it.
            let create: Int32 = holdsPartialOfEarlierTransfer ? 0 : O_CREAT
            fd = Glibc.open(fileURL.path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | create, 0o666)
            if fd < 0 {
                fail(errno, "opening")
                return false
            }
        }
        if holdsPartialOfEarlierTransfer {
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) >= startOffset else {
                failure = .invalidResumeData(reason: "the partial file \(fileURL.path) holds fewer than \(startOffset) bytes")
                return false
            }
        }
        guard ftruncate(fd, off_t(startOffset)) == 0 else {
            fail(errno, "truncating")
            return false
        }
        positioned = true
        return true
    }

    private func fail(_ code: Int32, _ action: String) {
        let message = "\(action) \(fileURL.path) failed: \(String(cString: strerror(code)))"
        failure = .sessionTaskFailed(code: .writeFailed, message: message)
    }

    // MARK: - After the attempt (the transfer's completion path)

    /// Closes the file; a body that wrote nothing still leaves a (possibly empty) file behind.
    func close() {
        if failure == nil, !positioned, case .write = decision { _ = position() }
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// Resume data for the bytes on disk, when the transfer can be continued: a `GET` whose entity
    /// has a strong `ETag` or a `Last-Modified` date, and a body not content-encoded.
    func resumeData(for request: URLRequest?) -> Data? {
        switch decision {
        case .refuse:
            return nil
        case .pending:
            // No head this attempt (cannot connect, cancelled early): a resumed transfer's partial
            // file and validators still hold, so the resume data is the one it started from.
            guard holdsPartialOfEarlierTransfer, let info = plan.resumeRequest else { return nil }
            return DownloadResumeData(request: info, temporaryFile: fileURL, bytesReceived: plan.resumeOffset,
                                      totalBytes: plan.totalBytes, validators: plan.validators).encoded()
        case .write:
            guard failure == nil || isWriteFailure else { return nil }
            let validators = statusCode == 206 && headValidators.isEmpty ? plan.validators : headValidators
            guard byteCount > 0, statusCode == 200 || statusCode == 206, validators.canValidateRange,
                  contentEncoding.map({ $0.lowercased() == "identity" }) ?? true,
                  let info = plan.resumeRequest ?? request.flatMap(DownloadResumeData.RequestInfo.init)
            else { return nil }
            return DownloadResumeData(request: info, temporaryFile: fileURL, bytesReceived: byteCount,
                                      totalBytes: entityLength, validators: validators).encoded()
        }
    }

    /// parity: where a retry of a download continues after one of its attempts.
    enum RetryResume: Sendable {
        /// Where the earlier attempts left it: this attempt left the partial file alone (no head: it
        /// never connected; an error page, written elsewhere) — and every request that is no download
        /// resuming on retry.
        case keepsPrevious
        /// From zero (a 416, no validators, a body that cannot be resumed).
        case startsOver
        /// From the bytes this attempt left on disk.
        case continues(Plan)
    }

    /// parity: where a retry of this download continues (issue 14 point 5): the bytes on disk when
    /// this attempt wrote some of a `GET` entity that `If-Range` can validate (a 200 or 206, not
    /// content-encoded) — the file is then kept for the next attempt, which sends `Range: bytes=N-`
    /// with `If-Range`; where the earlier attempts left it when this attempt left the partial file
    /// alone; from zero otherwise.
    func retryResume(request: URLRequest?) -> RetryResume {
        switch decision {
        case .pending:
            return .keepsPrevious
        case .refuse:
            return .startsOver
        case .write:
            guard statusCode == 200 || statusCode == 206 else { return .keepsPrevious }
            guard failure == nil || isWriteFailure, byteCount > 0 else { return .startsOver }
            let validators = statusCode == 206 && headValidators.isEmpty ? plan.validators : headValidators
            guard validators.canValidateRange, contentEncoding.map({ $0.lowercased() == "identity" }) ?? true,
                  (request?.httpMethod ?? "GET").uppercased() == "GET",
                  let info = plan.resumeRequest ?? request.flatMap(DownloadResumeData.RequestInfo.init)
            else { return .startsOver }
            keepFile()
            return .continues(Plan(fileURL: fileURL, resumeOffset: byteCount, validators: validators,
                                   totalBytes: entityLength, resumeRequest: info))
        }
    }

    private var isWriteFailure: Bool {
        if case .sessionTaskFailed(.writeFailed, _)? = failure { return true } else { return false }
    }
}

/// A parsed `Content-Range: bytes FIRST-LAST/COMPLETE` (or `bytes */COMPLETE` on a 416).
struct ContentRange: Equatable {
    /// The first byte's position, `nil` for the `*` form.
    var first: Int64?
    /// The last byte's position, `nil` for the `*` form.
    var last: Int64?
    /// The entity's full length, `nil` when the server wrote `*`.
    var completeLength: Int64?

    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        if parts[1] != "*" {
            guard let complete = Int64(parts[1]), complete >= 0 else { return nil }
            completeLength = complete
        }
        if parts[0] == "*" { return }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first
        else { return nil }
        self.first = first
        self.last = last
    }
}
