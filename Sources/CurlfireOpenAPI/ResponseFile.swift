#if OpenAPI
import Foundation
import OpenAPIRuntime

/// A response body on disk, handed to the OpenAPI client as an `HTTPBody` read in chunks.
enum ResponseFile {
    /// Bytes read from the file per chunk.
    static let chunkSize = 64 << 10

    /// A new, unique path in the temporary directory for one response body.
    static func makeURL() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("curlfire-openapi", isDirectory: true)
            .appendingPathComponent(UUID().uuidString)
    }

    /// The body at `url` as an `HTTPBody` of known length (`nil` when it is empty). The file is
    /// opened and unlinked at once: the open descriptor keeps it readable until the body is read
    /// or dropped, and nothing remains on disk either way.
    static func body(at url: URL) throws -> HTTPBody? {
        let handle = try FileHandle(forReadingFrom: url)
        try? FileManager.default.removeItem(at: url)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        guard size > 0 else {
            try? handle.close()
            return nil
        }
        return HTTPBody(FileChunks(file: OpenFile(handle: handle)), length: .known(Int64(size)),
                        iterationBehavior: .single)
    }
}

/// An open file, closed when the last chunk sequence or iterator holding it goes away.
/// `@unchecked Sendable`: the handle is read by the body's one iterator only (the body iterates once).
final class OpenFile: @unchecked Sendable {
    // Only the one iterator reads it (the body iterates once), so no lock is needed.
    let handle: FileHandle
    init(handle: FileHandle) { self.handle = handle }
    deinit { try? handle.close() }
}

/// The file's bytes in chunks of ``ResponseFile/chunkSize``.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let file: OpenFile

    func makeAsyncIterator() -> Iterator { Iterator(file: file) }

    struct Iterator: AsyncIteratorProtocol {
        let file: OpenFile

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            try Task.checkCancellation()
            guard let data = try file.handle.read(upToCount: ResponseFile.chunkSize), !data.isEmpty else { return nil }
            return HTTPBody.ByteChunk(data)
        }
    }
}
#endif
