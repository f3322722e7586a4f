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
enum DownloadFileMover {
    /// Why a move failed, as text for ``CurlfireError/downloadedFileMoveFailed(error:source:destination:)``.
    struct Failure: Error, Equatable {
        let message: String
    }

    /// Moves `source` to `destination` as `options` allow.
    static func move(_ source: URL, to destination: URL, options: DownloadRequest.DownloadOptions) throws(Failure) {
        guard destination.isFileURL else { throw Failure(message: "\(destination) is not a file URL") }
        let replace = options.contains(.removePreviousFile)
        if options.contains(.createIntermediateDirectories) {
            do {
                try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
            } catch {
                throw Failure(message: "creating \(destination.deletingLastPathComponent().path) failed: \(error)")
            }
        }
        if replace, isDirectory(destination.path) {
            throw Failure(message: "\(destination.path) is a directory; removePreviousFile replaces files only")
        }
        switch place(source.path, at: destination.path, replace: replace) {
        case 0:
            return
        case EXDEV:
            try copyAcross(source, to: destination, replace: replace)
        case let code:
            throw Failure(message: describe(code, destination: destination.path))
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

    private static func copyAcross(_ source: URL, to destination: URL, replace: Bool) throws(Failure) {
        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).curlfire-\(UUID().uuidString).partial")
        if let message = copy(source.path, to: staging.path) {
            unlink(staging.path)
            throw Failure(message: message)
        }
        let code = place(staging.path, at: destination.path, replace: replace)
        guard code == 0 else {
            unlink(staging.path)
            throw Failure(message: describe(code, destination: destination.path))
        }
        unlink(source.path)
    }

    /// Copies a file's bytes in 1 MiB chunks; returns an error message or `nil`.
    private static func copy(_ source: String, to target: String) -> String? {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return "opening \(source) failed: \(String(cString: strerror(errno)))" }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard output >= 0 else { return "creating \(target) failed: \(String(cString: strerror(errno)))" }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer, chunk)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                close(output)
                return "reading \(source) failed: \(String(cString: strerror(errno)))"
            }
            var done = 0
            while done < count {
                let wrote = write(output, buffer + done, count - done)
                if wrote < 0 {
                    if errno == EINTR { continue }
                    close(output)
                    return "writing \(target) failed: \(String(cString: strerror(errno)))"
                }
                done += wrote
            }
        }
        guard close(output) == 0 else { return "closing \(target) failed: \(String(cString: strerror(errno)))" }
        return nil
    }

    private static func describe(_ code: Int32, destination: String) -> String {
        if code == EEXIST { return "\(destination) already exists (use .removePreviousFile to replace it)" }
        if code == ENOENT {
            return "no such directory for \(destination) (use .createIntermediateDirectories to create it)"
        }
        return String(cString: strerror(code))
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
