import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Moves a downloaded file to its destination (off the engine thread).
///
/// Within one file system the move is a single atomic step: `link` + `unlink` (which refuses an
/// existing destination) or, with `.removePreviousFile`, `rename` (which replaces it). Across file
/// systems the bytes are copied into a hidden file beside the destination, which then takes the
/// destination's name the same way, and the source is removed last. On failure the source is left
/// where it was.
///
/// A failure throws the file system's own error — a `POSIXError` with the `errno` of the failing
/// call (`EEXIST` for an occupied destination, `ENOENT` for a missing directory, `EISDIR`, …), or
/// the error `FileManager` threw while creating directories — which
/// ``CurlfireError/downloadedFileMoveFailed(error:source:destination:)`` carries.
enum DownloadFileMover {
    /// Moves `source` to `destination` as `options` allow.
    static func move(_ source: URL, to destination: URL, options: DownloadRequest.DownloadOptions) throws {
        guard destination.isFileURL else { throw posixError(EINVAL) }
        let replace = options.contains(.removePreviousFile)
        if options.contains(.createIntermediateDirectories) {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
        }
        if replace, isDirectory(destination.path) { throw posixError(EISDIR) }
        switch place(source.path, at: destination.path, replace: replace) {
        case 0:
            return
        case EXDEV:
            try copyAcross(source, to: destination, replace: replace)
        case let code:
            throw posixError(code)
        }
    }

    /// `errno` as a `POSIXError` (`EIO` for a code Foundation does not know).
    static func posixError(_ code: Int32) -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }

    /// The sentence for a failed move: what was in the way and, where an option fixes it, which one.
    ///
    /// An `ENOENT` from the move itself means `.createIntermediateDirectories` was not given (with it,
    /// a missing folder is created first, and a failure there arrives as `FileManager`'s error, which
    /// names the folder instead); an occupied destination (`EEXIST`, or Foundation's
    /// `fileWriteFileExists` for the destination itself) suggests `.removePreviousFile`.
    static func sentence(for error: Error, source: URL, destination: URL) -> String {
        let prefix = "The downloaded file could not be moved to \(destination.path)"
        let kept = " (the download is kept at \(source.path))"
        if let posix = error as? POSIXError {
            switch posix.code {
            case .EEXIST:
                return "\(prefix): the destination already exists; pass .removePreviousFile to replace it\(kept)."
            case .ENOENT where !isDirectory(destination.deletingLastPathComponent().path):
                return "\(prefix): the folder \(destination.deletingLastPathComponent().path) does not exist; "
                    + "pass .createIntermediateDirectories to create it\(kept)."
            case .EISDIR:
                return "\(prefix): the destination is a directory, and .removePreviousFile replaces files only\(kept)."
            case .EINVAL where !destination.isFileURL:
                return "\(prefix): the destination is not a file URL\(kept)."
            default:
                return "\(prefix): \(CurlfireError.fragment(CurlfireError.describe(posix)))\(kept)."
            }
        }
        let nsError = error as NSError
        let path = (nsError.userInfo[NSFilePathErrorKey] as? String) ?? destination.deletingLastPathComponent().path
        if nsError.domain == NSCocoaErrorDomain, nsError.code == CocoaError.fileWriteFileExists.rawValue {
            if path == destination.path {
                return "\(prefix): the destination already exists; pass .removePreviousFile to replace it\(kept)."
            }
            return "\(prefix): its folder could not be created because a file already exists at \(path)\(kept)."
        }
        if nsError.domain == NSCocoaErrorDomain {
            return "\(prefix): the folder \(path) could not be created "
                + "(\(CurlfireError.fragment(CurlfireError.describe(error))))\(kept)."
        }
        return "\(prefix): \(CurlfireError.fragment(CurlfireError.describe(error)))\(kept)."
    }

    /// Gives `source` the name `destination` in one step; returns 0 or the `errno`.
    private static func place(_ source: String, at destination: String, replace: Bool) -> Int32 {
        if replace { return rename(source, destination) == 0 ? 0 : errno }
        if link(source, destination) == 0 {
            unlink(source)
            return 0
        }
        let code = errno
        // File systems without hard links: check, then rename (no longer atomic against a racing creator).
        guard code == EPERM || code == EOPNOTSUPP || code == EMLINK else { return code }
        if exists(destination) { return EEXIST }
        return rename(source, destination) == 0 ? 0 : errno
    }

    private static func copyAcross(_ source: URL, to destination: URL, replace: Bool) throws {
        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).curlfire-\(UUID().uuidString).partial")
        let copied = copy(source.path, to: staging.path)
        if copied != 0 {
            unlink(staging.path)
            throw posixError(copied)
        }
        let code = place(staging.path, at: destination.path, replace: replace)
        guard code == 0 else {
            unlink(staging.path)
            throw posixError(code)
        }
        unlink(source.path)
    }

    /// Copies a file's bytes in 1 MiB chunks; returns 0 or the failing call's `errno`.
    private static func copy(_ source: String, to target: String) -> Int32 {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return errno }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard output >= 0 else { return errno }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer, chunk)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(output)
                return code
            }
            var done = 0
            while done < count {
                let wrote = write(output, buffer + done, count - done)
                if wrote < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    close(output)
                    return code
                }
                done += wrote
            }
        }
        guard close(output) == 0 else { return errno }
        return 0
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
