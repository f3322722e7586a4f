import Foundation
import FoundationNetworking

/// How an encoded multipart form is handed to an upload: in memory or as a file.
enum MultipartUploadable: Sendable {
    /// The encoded body in memory.
    case data(Data)
    /// A file holding the encoded body; when `removeAfterUpload` is `true` the uploader deletes it
    /// once the upload has finished, failed or been cancelled.
    case file(URL, removeAfterUpload: Bool)
}

extension MultipartFormData {
    /// Encodes the form for an upload: in memory below `threshold` bytes, otherwise into a new file
    /// (mode `0600`) under `temporaryDirectory/curlfire.multipart/`, which the caller must remove after
    /// the upload.
    ///
    /// - Parameters:
    ///   - threshold:          Forms with a ``contentLength`` below this are encoded in memory.
    ///   - temporaryDirectory: Where the encoded file goes, e.g. `FileManager.default.temporaryDirectory`.
    /// - Returns: `.data` with the body, or `.file(url, removeAfterUpload: true)`.
    /// - Throws:  The errors of ``encode()`` and ``writeEncodedData(to:)``; `.outputStreamCreationFailed`
    ///            when the directory cannot be created.
    func makeUploadable(threshold: UInt64, temporaryDirectory: URL) throws -> MultipartUploadable {
        if contentLength < threshold { return .data(try encode()) }
        if let error = snapshot().error { throw error }

        let directory = temporaryDirectory.appendingPathComponent("curlfire.multipart", isDirectory: true)
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CurlfireError.multipartEncodingFailed(reason: .outputStreamCreationFailed(for: directory))
        }
        let fileURL = directory.appendingPathComponent(UUID().uuidString)
        try writeEncodedData(to: fileURL, permissions: 0o600)
        return .file(fileURL, removeAfterUpload: true)
    }
}
