import Foundation
import FoundationNetworking

/// Builds a `multipart/form-data` body (RFC 7578) from data, files and streams.
///
/// Parts are appended in order and encoded either in memory with ``encode()`` or streamed to a file
/// with ``writeEncodedData(to:)``, which reads files and streams in 1 MiB chunks and never holds a
/// whole part in memory. `SessionManager`'s multipart upload picks between the two with
/// ``encodingMemoryThreshold``.
///
/// The body has this shape, with CRLF line ends:
///
/// ```
/// --BOUNDARY
/// Content-Disposition: form-data; name="field"
///
/// value
/// --BOUNDARY
/// Content-Disposition: form-data; name="file"; filename="a.png"
/// Content-Type: image/png
///
/// <bytes>
/// --BOUNDARY--
/// ```
///
/// A form without parts encodes to no bytes at all.
///
/// An `append` that cannot work (a missing file, a directory, an unreadable file, a file without an
/// extension when the MIME type must be guessed) records the first such failure as a
/// ``CurlfireError/multipartEncodingFailed(reason:)``, adds no part, and the failure is thrown by the
/// next ``encode()`` or ``writeEncodedData(to:)``.
///
/// The form may be built on one thread and encoded on another: its state is guarded by a lock, and
/// encoding works on a snapshot taken under that lock.
public final class MultipartFormData: @unchecked Sendable {
    // @unchecked: every mutable property below is read and written only with `lock` held.

    /// Forms whose ``contentLength`` is below this many bytes (10 MB) are encoded in memory by uploads;
    /// larger ones are streamed to a temporary file first.
    public static let encodingMemoryThreshold: UInt64 = 10_000_000

    /// The boundary between parts, without the leading `--`.
    public let boundary: String
    /// The file manager used to inspect appended files.
    public let fileManager: FileManager

    /// `multipart/form-data; boundary=<boundary>`, the value for the request's `Content-Type`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The exact number of bytes ``encode()`` produces: boundaries, headers and bodies of the parts
    /// appended so far (`0` without parts).
    public var contentLength: UInt64 { contentLength(of: snapshot().parts) }

    /// The encoded size of `parts` with this form's boundary.
    func contentLength(of parts: [MultipartBodyPart]) -> UInt64 {
        guard !parts.isEmpty else { return 0 }
        let separators = UInt64(initialBoundary.count) + UInt64(parts.count - 1) * UInt64(innerBoundary.count)
            + UInt64(finalBoundary.count)
        return parts.reduce(separators) { $0 + UInt64($1.headerBlock.count) + $1.bodyLength }
    }

    private let lock = Lock.make()
    private var bodyParts: [MultipartBodyPart] = []
    private var bodyPartError: CurlfireError?

    /// Creates an empty form.
    ///
    /// - Parameters:
    ///   - fileManager: The file manager used to inspect appended files. `.default` by default.
    ///   - boundary:    The boundary, 1 to 70 characters from RFC 2046's `bchars` (letters, digits and
    ///                  `'()+_,-./:=?`, no trailing space) that occur in no part. `nil` by default,
    ///                  which picks `curlfire.boundary.` followed by 16 random hex digits.
    public init(fileManager: FileManager = .default, boundary: String? = nil) {
        self.fileManager = fileManager
        self.boundary = boundary ?? Self.randomBoundary()
    }

    // MARK: - Data parts

    /// Appends a field whose value is `data`, with no file name and no `Content-Type`.
    ///
    /// - Parameters:
    ///   - data: The field's value.
    ///   - name: The field's name.
    public func append(_ data: Data, withName name: String) {
        appendData(data, name: name, fileName: nil, mimeType: nil)
    }

    /// Appends a field whose value is `data`, with a `Content-Type` and no file name.
    ///
    /// - Parameters:
    ///   - data:     The field's value.
    ///   - name:     The field's name.
    ///   - mimeType: The part's `Content-Type`.
    public func append(_ data: Data, withName name: String, mimeType: String) {
        appendData(data, name: name, fileName: nil, mimeType: mimeType)
    }

    /// Appends a file-like part whose bytes are `data`.
    ///
    /// - Parameters:
    ///   - data:     The part's bytes.
    ///   - name:     The field's name.
    ///   - fileName: The file name the server sees.
    ///   - mimeType: The part's `Content-Type`.
    public func append(_ data: Data, withName name: String, fileName: String, mimeType: String) {
        appendData(data, name: name, fileName: fileName, mimeType: mimeType)
    }

    private func appendData(_ data: Data, name: String, fileName: String?, mimeType: String?) {
        let headers = MultipartBodyPart.headers(name: name, fileName: fileName, mimeType: mimeType)
        append(MultipartBodyPart(headers: headers, source: .data(data), bodyLength: UInt64(data.count)))
    }

    // MARK: - File parts

    /// Appends the file at `fileURL`, named after its last path component, with a MIME type from its
    /// extension (`application/octet-stream` for an extension Curlfire does not know).
    ///
    /// The file is only inspected now; its bytes are read when the form is encoded. Failures are
    /// recorded and thrown at encode time: `.bodyPartURLInvalid` (not a file URL),
    /// `.bodyPartFileNotReachable` (missing), `.bodyPartFileIsDirectory`, `.bodyPartFileSizeNotAvailable`
    /// or `.bodyPartFileSizeQueryFailedWithError`, `.bodyPartInputStreamCreationFailed` (cannot be
    /// opened for reading), `.bodyPartFilenameInvalid` (no file name) and `.bodyPartMimeTypeMissing`
    /// (no extension).
    ///
    /// - Parameters:
    ///   - fileURL: A `file://` URL.
    ///   - name:    The field's name.
    public func append(_ fileURL: URL, withName name: String) {
        guard let length = validatedFileLength(fileURL) else { return }
        let fileName = fileURL.lastPathComponent
        guard !fileName.isEmpty, fileName != "/" else {
            return record(.multipartEncodingFailed(reason: .bodyPartFilenameInvalid(in: fileURL)))
        }
        let pathExtension = fileURL.pathExtension
        guard !pathExtension.isEmpty else {
            return record(.multipartEncodingFailed(reason: .bodyPartMimeTypeMissing(for: fileURL)))
        }
        appendFile(fileURL, length: length, name: name, fileName: fileName,
                   mimeType: MIMETypeTable.type(forPathExtension: pathExtension))
    }

    /// Appends the file at `fileURL` with the given file name and MIME type.
    ///
    /// The file is only inspected now (see `append(_:withName:)` for files, which lists the failures recorded);
    /// its bytes are read when the form is encoded, up to the size it had when appended.
    ///
    /// - Parameters:
    ///   - fileURL:  A `file://` URL.
    ///   - name:     The field's name.
    ///   - fileName: The file name the server sees.
    ///   - mimeType: The part's `Content-Type`.
    public func append(_ fileURL: URL, withName name: String, fileName: String, mimeType: String) {
        guard let length = validatedFileLength(fileURL) else { return }
        appendFile(fileURL, length: length, name: name, fileName: fileName, mimeType: mimeType)
    }

    private func appendFile(_ fileURL: URL, length: UInt64, name: String, fileName: String, mimeType: String) {
        let headers = MultipartBodyPart.headers(name: name, fileName: fileName, mimeType: mimeType)
        append(MultipartBodyPart(headers: headers, source: .file(fileURL), bodyLength: length))
    }

    /// The file's size, or `nil` after recording why it cannot be a part.
    private func validatedFileLength(_ fileURL: URL) -> UInt64? {
        let fail = { (reason: CurlfireError.MultipartEncodingFailureReason) -> UInt64? in
            self.record(.multipartEncodingFailed(reason: reason))
            return nil
        }
        guard fileURL.isFileURL else { return fail(.bodyPartURLInvalid(url: fileURL)) }
        let path = fileURL.path
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return fail(.bodyPartFileNotReachable(at: fileURL))
        }
        guard !isDirectory.boolValue else { return fail(.bodyPartFileIsDirectory(at: fileURL)) }

        let size: UInt64
        do {
            guard let number = try fileManager.attributesOfItem(atPath: path)[.size] as? NSNumber else {
                return fail(.bodyPartFileSizeNotAvailable(at: fileURL))
            }
            size = number.uint64Value
        } catch {
            return fail(.bodyPartFileSizeQueryFailedWithError(forURL: fileURL, error: error))
        }

        // Opening proves the file is readable now; O_NONBLOCK keeps a FIFO from blocking the caller.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return fail(.bodyPartInputStreamCreationFailed(for: fileURL)) }
        close(descriptor)
        return size
    }

    // MARK: - Stream parts

    /// Appends a file-like part whose bytes come from a ``BodyPartStream``.
    ///
    /// - Parameters:
    ///   - length:     The exact number of bytes the part has. Encoding fails with
    ///                 `.inputStreamReadFailed` wrapping a ``BodyPartLengthMismatch`` when the stream ends
    ///                 sooner; bytes after `length` are never read.
    ///   - name:       The field's name.
    ///   - fileName:   The file name the server sees.
    ///   - mimeType:   The part's `Content-Type`.
    ///   - makeStream: Creates a fresh stream for each encoding pass (see ``BodyPartStream``).
    public func append(
        withLength length: UInt64, name: String, fileName: String, mimeType: String,
        stream makeStream: @escaping @Sendable () throws -> any BodyPartStream
    ) {
        let headers = MultipartBodyPart.headers(name: name, fileName: fileName, mimeType: mimeType)
        append(withLength: length, headers: headers, stream: makeStream)
    }

    /// Appends a part with headers of your own and bytes from a ``BodyPartStream``.
    ///
    /// A header whose name or value holds CR, LF or NUL is refused: the form records
    /// ``CurlfireError/invalidHeader(name:)`` and adds no part.
    ///
    /// - Parameters:
    ///   - length:     The exact number of bytes the part has.
    ///   - headers:    The part's headers, written in order.
    ///   - makeStream: Creates a fresh stream for each encoding pass (see ``BodyPartStream``).
    public func append(
        withLength length: UInt64, headers: HTTPHeaders,
        stream makeStream: @escaping @Sendable () throws -> any BodyPartStream
    ) {
        append(MultipartBodyPart(headers: headers, source: .stream(makeStream), bodyLength: length))
    }

    // MARK: - State

    private func append(_ part: MultipartBodyPart) {
        if let unsafe = part.headerLines.first(where: { !$0.isInjectionSafe }) {
            return record(.invalidHeader(name: unsafe.name))
        }
        lock.lock()
        bodyParts.append(part)
        lock.unlock()
    }

    private func record(_ error: CurlfireError) {
        lock.lock()
        if bodyPartError == nil { bodyPartError = error }
        lock.unlock()
    }

    /// The parts and the first recorded failure, read together under the lock.
    func snapshot() -> (parts: [MultipartBodyPart], error: CurlfireError?) {
        lock.lock()
        defer { lock.unlock() }
        return (bodyParts, bodyPartError)
    }

    private static func randomBoundary() -> String {
        let random = UInt64.random(in: .min ... .max)
        let hex = String(random, radix: 16)
        return "curlfire.boundary." + String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: - Boundaries

    var initialBoundary: Data { Data("--\(boundary)\r\n".utf8) }
    var innerBoundary: Data { Data("\r\n--\(boundary)\r\n".utf8) }
    var finalBoundary: Data { Data("\r\n--\(boundary)--\r\n".utf8) }
}
