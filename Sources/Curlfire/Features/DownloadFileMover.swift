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

    /// A sentence for a move failure's error, with a hint for the two a caller can fix by an option.
    static func describe(_ error: Error) -> String {
        guard let posix = error as? POSIXError else { return "\(error)" }
        let text = String(cString: strerror(posix.code.rawValue))
        switch posix.code {
        case .EEXIST: return "\(text) (the destination already exists: use .removePreviousFile to replace it)"
        case .ENOENT: return "\(text) (no such directory: use .createIntermediateDirectories to create it)"
        case .EISDIR: return "\(text) (removePreviousFile replaces files only)"
        default: return text
        }
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
