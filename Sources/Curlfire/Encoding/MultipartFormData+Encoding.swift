import Foundation
import FoundationNetworking

extension MultipartFormData {
    /// The size of the buffer files and streams are read through: 1 MiB.
    static let streamBufferSize = 1 << 20

    /// Encodes the whole form in memory.
    ///
    /// Files and streams are read in 1 MiB chunks straight into the result; for large forms prefer
    /// ``writeEncodedData(to:)``.
    ///
    /// - Returns: The body, ``contentLength`` bytes long.
    /// - Throws:  The first failure recorded by an `append`, or a
    ///            ``CurlfireError/multipartEncodingFailed(reason:)`` raised while reading a file
    ///            (`.bodyPartInputStreamCreationFailed`, `.inputStreamReadFailed`) or a stream
    ///            (`.inputStreamReadFailed`).
    public func encode() throws -> Data {
        let (parts, error) = snapshot()
        if let error { throw error }
        var encoded = Data()
        encoded.reserveCapacity(Int(clamping: contentLength(of: parts)))
        try streamEncoded(parts) { chunk in encoded.append(chunk.assumingMemoryBound(to: UInt8.self)) }
        return encoded
    }

    /// Streams the encoded form into a new file at `fileURL`, never holding more than one 1 MiB chunk
    /// of a file or stream part in memory.
    ///
    /// The file must not exist: it is created exclusively (an existing file or symbolic link there is
    /// never overwritten), with permissions `0666` less the process's umask. When writing fails, the
    /// partly written file is removed.
    ///
    /// - Parameter fileURL: A `file://` URL where no file exists yet.
    /// - Throws: The first failure recorded by an `append`; or a
    ///           ``CurlfireError/multipartEncodingFailed(reason:)``: `.outputStreamFileAlreadyExists`,
    ///           `.outputStreamURLInvalid` (not a file URL), `.outputStreamCreationFailed` (the file
    ///           cannot be created),
    ///           `.outputStreamWriteFailed`, or a read failure as in ``encode()``.
    public func writeEncodedData(to fileURL: URL) throws {
        try writeEncodedData(to: fileURL, permissions: 0o666)
    }

    /// ``writeEncodedData(to:)`` with the creation mode of the file.
    func writeEncodedData(to fileURL: URL, permissions: mode_t) throws {
        let (parts, error) = snapshot()
        if let error { throw error }
        guard fileURL.isFileURL else {
            throw CurlfireError.multipartEncodingFailed(reason: .outputStreamURLInvalid(url: fileURL))
        }
        let path = fileURL.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            let reason: CurlfireError.MultipartEncodingFailureReason = errno == EEXIST
                ? .outputStreamFileAlreadyExists(at: fileURL) : .outputStreamCreationFailed(for: fileURL)
            throw CurlfireError.multipartEncodingFailed(reason: reason)
        }
        do {
            try streamEncoded(parts) { chunk in try Self.writeAll(chunk, to: descriptor) }
            guard close(descriptor) == 0 else { throw Self.writeError(errno) }
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
    }

    // MARK: - Streaming

    /// Hands the encoded form to `sink` in order: boundaries and header blocks whole, bodies of data
    /// parts whole, bodies of file and stream parts in chunks of at most 1 MiB.
    private func streamEncoded(_ parts: [MultipartBodyPart], to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !parts.isEmpty else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.streamBufferSize, alignment: 1)
        defer { buffer.deallocate() }

        for (index, part) in parts.enumerated() {
            try (index == 0 ? initialBoundary : innerBoundary).withUnsafeBytes(sink)
            try part.headerBlock.withUnsafeBytes(sink)
            switch part.source {
            case let .data(data):
                try data.withUnsafeBytes(sink)
            case let .file(url):
                try Self.copyFile(url, length: part.bodyLength, through: buffer, to: sink)
            case let .stream(makeStream):
                try Self.copyStream(makeStream, length: part.bodyLength, through: buffer, to: sink)
            }
        }
        try finalBoundary.withUnsafeBytes(sink)
    }

    private static func copyFile(
        _ url: URL, length: UInt64, through buffer: UnsafeMutableRawBufferPointer,
        to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CurlfireError.multipartEncodingFailed(reason: .bodyPartInputStreamCreationFailed(for: url))
        }
        defer { close(descriptor) }

        var copied: UInt64 = 0
        while copied < length {
            let wanted = Int(min(UInt64(buffer.count), length - copied))
            let count = read(descriptor, buffer.baseAddress, wanted)
            if count < 0 {
                if errno == EINTR { continue }
                throw readError(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            guard count > 0 else {
                throw readError(BodyPartLengthMismatch(source: url.path, expectedLength: length, actualLength: copied))
            }
            try sink(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            copied += UInt64(count)
        }
    }

    private static func copyStream(
        _ makeStream: @Sendable () throws -> any BodyPartStream, length: UInt64,
        through buffer: UnsafeMutableRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var stream: any BodyPartStream
        do { stream = try makeStream() } catch { throw readError(error) }

        var copied: UInt64 = 0
        while copied < length {
            let wanted = Int(min(UInt64(buffer.count), length - copied))
            let window = UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted])
            let count: Int
            do { count = try stream.read(into: window) } catch { throw readError(error) }
            guard count > 0, count <= wanted else {
                throw readError(BodyPartLengthMismatch(source: "stream", expectedLength: length,
                                                       actualLength: copied + UInt64(max(count, 0))))
            }
            try sink(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            copied += UInt64(count)
        }
    }

    private static func writeAll(_ chunk: UnsafeRawBufferPointer, to descriptor: Int32) throws {
        var offset = 0
        while offset < chunk.count {
            let written = write(descriptor, chunk.baseAddress! + offset, chunk.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw writeError(errno)
            }
            offset += written
        }
    }

    private static func readError(_ error: Error) -> CurlfireError {
        .multipartEncodingFailed(reason: .inputStreamReadFailed(error: error))
    }

    private static func writeError(_ code: Int32) -> CurlfireError {
        .multipartEncodingFailed(reason: .outputStreamWriteFailed(error: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)))
    }
}
