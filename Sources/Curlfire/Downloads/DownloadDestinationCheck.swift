import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

/// What can be known about a download's destination before anything is requested: a destination
/// that is occupied without `.removePreviousFile`, whose directory is missing without
/// `.createIntermediateDirectories`, or whose directory cannot be written fails the request with
/// ``CurlfireError/downloadDestinationUnusable(error:destination:)`` instead of after the whole
/// body has arrived.
///
/// A ``DownloadRequest/DownloadFileDestination`` is a function of the temporary file and the
/// response, which do not exist yet. It is called with two probe responses that differ in every
/// part a destination usually reads (URL, suggested file name, status, temporary file): when both
/// give the same file and options, the destination does not depend on the response and it is
/// checked whole; when only the directory is the same (`suggestedDownloadDestination`),
/// only the directory is checked; otherwise nothing is (the move reports what fails, as before).
enum DownloadDestinationCheck {
    /// The problem with `destination` for `request`, or `nil` when none can be seen beforehand.
    static func problem(_ destination: DownloadRequest.DownloadFileDestination,
                        for request: URLRequest) -> CurlfireError? {
        guard let url = request.url, let (first, second) = probes(for: url) else { return nil }
        let a = destination(first.temporaryURL, first.response)
        let b = destination(second.temporaryURL, second.response)
        guard a.destinationURL.isFileURL, b.destinationURL.isFileURL else { return nil }
        let fileA = a.destinationURL.standardizedFileURL, fileB = b.destinationURL.standardizedFileURL
        let directory = fileA.deletingLastPathComponent()
        guard a.options == b.options, directory.path == fileB.deletingLastPathComponent().path else { return nil }
        let code: Int32?
        if fileA.path == fileB.path {
            code = fileProblem(fileA.path, options: a.options) ?? directoryProblem(directory.path, options: a.options)
        } else {
            code = directoryProblem(directory.path, options: a.options)
        }
        return code.map { .downloadDestinationUnusable(error: DownloadFileMover.posixError($0), destination: fileA) }
    }

    /// `EEXIST` for an occupied destination without `.removePreviousFile`; `EISDIR` for a
    /// directory there (which `.removePreviousFile` does not replace).
    static func fileProblem(_ path: String, options: DownloadRequest.DownloadOptions) -> Int32? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if (info.st_mode & S_IFMT) == S_IFDIR { return EISDIR }
        return options.contains(.removePreviousFile) ? nil : EEXIST
    }

    /// `ENOENT` for a missing directory without `.createIntermediateDirectories`; with it, the
    /// nearest existing ancestor must be a writable directory. `ENOTDIR` where a file stands in
    /// the way, `EACCES` / `EROFS` where it cannot be written.
    static func directoryProblem(_ path: String, options: DownloadRequest.DownloadOptions) -> Int32? {
        var current = path
        while true {
            var info = stat()
            if stat(current, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { return ENOTDIR }
                return access(current, W_OK | X_OK) == 0 ? nil : errno
            }
            let code = errno
            guard code == ENOENT else { return code }
            guard options.contains(.createIntermediateDirectories) else { return ENOENT }
            let parent = (current as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == current { return nil }
            current = parent
        }
    }

    /// Two responses (and temporary files) that differ in URL, suggested file name and status.
    private static func probes(for url: URL) -> ((temporaryURL: URL, response: HTTPURLResponse),
                                                 (temporaryURL: URL, response: HTTPURLResponse))? {
        let temporary = FileManager.default.temporaryDirectory
        let marker = UUID().uuidString
        guard let otherURL = URL(string: "http://probe.invalid/curlfire-probe-\(marker)/other-\(marker).bin"),
              let first = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]),
              let second = HTTPURLResponse(
                url: otherURL, statusCode: 203, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Disposition": "attachment; filename=\"probe-\(marker).dat\""])
        else { return nil }
        return ((temporary.appendingPathComponent("curlfire-probe-a-\(marker).tmp"), first),
                (temporary.appendingPathComponent("curlfire-probe-b-\(marker).tmp"), second))
    }
}
