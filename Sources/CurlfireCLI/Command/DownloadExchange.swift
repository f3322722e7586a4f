#if CLI
import Curlfire
import CurlfireCLIKit
import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

/// `--download`: the body goes to a file (`-o`, else the server-suggested name in the current
/// directory), with a progress bar; `--continue` resumes a partial `-o` file.
///
/// The library downloads into its temporary file; this moves it into place only when the response
/// is a success, so an error page never overwrites a file. `--continue` sends `Range: bytes=N-`
/// (N = the partial file's length) and decides from the reply: a 206 starting at N is appended, a
/// 200 replaces the file, a 416 saying the length is N means it is complete; anything else leaves the
/// partial file as it was. The entity's validator is kept in the file's extended attributes
/// (``FileValidator``) and sent as `If-Range`, so a file that changed on the server restarts.
///
/// A download that fails or is interrupted (Ctrl-C) after receiving bytes of an entity with a
/// validator leaves them in the output file, ready for `--continue`.
struct DownloadExchange {
    let command: CurlfireCommand
    let prepared: PreparedRequest
    let session: SessionManager

    func run() async throws(CLIFailure) {
        var urlRequest = prepared.urlRequest
        let offset = command.download.resume ? (command.output.output.map(Self.fileSize) ?? 0) : 0
        if offset > 0, let path = command.output.output {
            urlRequest.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            if let validator = FileValidator.read(at: path) { urlRequest.setValue(validator, forHTTPHeaderField: "If-Range") }
        }
        var request = session.download(urlRequest)
        if let auth = command.transfer.auth, let colon = auth.firstIndex(of: ":") {
            request = request.authenticate(user: String(auth[..<colon]), password: String(auth[auth.index(after: colon)...]))
        }
        if let seconds = command.transfer.connectTimeout { request = request.connectTimeout(seconds) }
        if prepared.bodyInGET || prepared.multipart != nil {
            throw CLIFailure(.usage, "--download sends no form or GET body; use it with a plain request")
        }
        if command.output.verbose { StandardStreams.err(request.debugDescription + "\n\n") }
        let reporter = ProgressReporter(showBar: command.download.progress || StandardStreams.isTerminal(STDERR_FILENO),
                                        offset: offset)
        let ready = request.downloadProgress(queue: reporter.queue) { reporter.update($0) }
        let interrupt = InterruptHandler { ready.cancel() }
        let response: DefaultDownloadResponse = await withCheckedContinuation { continuation in
            ready.response { continuation.resume(returning: $0) }
        }
        interrupt.stop()
        do {
            try Report.finish(command: command, request: response.request, response: response.response,
                              error: response.error, timeline: response.timeline, metrics: response.metrics) {
                () throws(CLIFailure) in
                try save(response, offset: offset, reporter: reporter)
            }
        } catch {
            reporter.abandon()
            let kept = response.error == nil ? nil : keepPartial(response, offset: offset)
            if let temporary = response.temporaryURL { unlink(temporary.path) }
            if response.error?.isExplicitlyCancelledError == true {
                throw CLIFailure(.failure, "interrupted" + (kept.map { "; \($0)" } ?? ""))
            }
            guard let kept, let message = error.message else { throw error }
            throw CLIFailure(error.status, message + "; " + kept)
        }
    }

    /// Moves the bytes a failed or interrupted download received into the output file, when the
    /// library left resume data (the entity has a validator), and says so; `nil` when nothing was kept.
    private func keepPartial(_ download: DefaultDownloadResponse, offset: Int64) -> String? {
        guard let resumeData = download.resumeData, let partial = PartialDownload(resumeData: resumeData),
              let temporary = download.temporaryURL, let response = download.response else { return nil }
        let destination = command.output.output
            ?? DownloadRequest.suggestedDownloadDestination(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))(temporary, response).0.path
        let decision = offset > 0
            ? ResumeDecision.decide(statusCode: response.statusCode, contentRange: response.value(forHTTPHeaderField: "Content-Range"), offset: offset)
            : (response.statusCode == 200 ? .restart : .refuse("not a 200"))
        do {
            switch decision {
            case .append: try Self.append(temporary, to: destination, at: offset, limit: partial.bytesReceived)
            case .restart:
                guard truncate(temporary.path, off_t(partial.bytesReceived)) == 0 else { return nil }
                try Self.replace(destination, with: temporary)
            default: return nil
            }
        } catch {
            return nil
        }
        FileValidator.store(partial.validator, at: destination)
        return "kept \(Self.fileSize(destination)) bytes in \(destination): add --continue -o \(destination) to resume"
    }

    private func save(_ download: DefaultDownloadResponse, offset: Int64, reporter: ProgressReporter) throws(CLIFailure) {
        guard let response = download.response, let temporary = download.temporaryURL else {
            throw CLIFailure(.failure, "the download produced no file")
        }
        let destination = command.output.output
            ?? DownloadRequest.suggestedDownloadDestination(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))(temporary, response).0.path
        let status = response.statusCode
        if offset > 0 {
            let decision = ResumeDecision.decide(statusCode: status, contentRange: response.value(forHTTPHeaderField: "Content-Range"),
                                                 offset: offset)
            switch decision {
            case .append:
                try Self.append(temporary, to: destination, at: offset, limit: nil)
                unlink(temporary.path)
            case .restart:
                StandardStreams.err("curlfire: the server sent the whole file (200): starting over\n")
                try Self.replace(destination, with: temporary)
                FileValidator.store(Self.validator(of: response), at: destination)
                reporter.finish(received: Self.fileSize(destination), resumedFrom: 0, destination: destination)
                return
            case .alreadyComplete:
                unlink(temporary.path)
                StandardStreams.err("curlfire: \(destination) is already complete (\(offset) bytes)\n")
                return
            case let .refuse(reason):
                throw CLIFailure(ExitStatus.forStatus(status) == .ok ? .io : ExitStatus.forStatus(status),
                                 "cannot continue \(destination): \(reason); the partial file is unchanged")
            }
        } else {
            guard (200..<300).contains(status) else {
                let exit = ExitStatus.forStatus(status)
                throw CLIFailure(exit == .ok ? .failure : exit, "HTTP \(status) \(ReasonPhrase.for(status)): nothing saved")
            }
            try Self.replace(destination, with: temporary)
        }
        FileValidator.store(Self.validator(of: response), at: destination)
        reporter.finish(received: Self.fileSize(destination), resumedFrom: offset, destination: destination)
    }

    private static func validator(of response: HTTPURLResponse) -> String? {
        FileValidator.validator(etag: response.value(forHTTPHeaderField: "ETag"),
                                lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int64(info.st_size)
    }

    /// Moves `temporary` to `path`, replacing what is there (copying when they are on different file systems).
    private static func replace(_ path: String, with temporary: URL) throws(CLIFailure) {
        if rename(temporary.path, path) == 0 { return }
        guard errno == EXDEV else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw CLIFailure(.io, "cannot write \(path): \(reason)")
        }
        guard let output = fopen(path, "wb") else {
            unlink(temporary.path)
            throw CLIFailure(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(output); unlink(temporary.path) }
        try copy(temporary.path, into: output, name: path)
    }

    /// Appends `temporary` (its first `limit` bytes, or all) to `path`, which must still be `offset` bytes long.
    private static func append(_ temporary: URL, to path: String, at offset: Int64, limit: Int64?) throws(CLIFailure) {
        guard fileSize(path) == offset, let output = fopen(path, "r+b") else {
            throw CLIFailure(.io, "cannot continue \(path): it changed during the download")
        }
        defer { fclose(output) }
        guard fseeko(output, off_t(offset), SEEK_SET) == 0 else {
            throw CLIFailure(.io, "cannot seek in \(path): \(String(cString: strerror(errno)))")
        }
        try copy(temporary.path, into: output, name: path, limit: limit)
    }

    private static func copy(_ source: String, into output: UnsafeMutablePointer<FILE>, name: String,
                             limit: Int64? = nil) throws(CLIFailure) {
        guard let input = fopen(source, "rb") else {
            throw CLIFailure(.io, "cannot read the downloaded file: \(String(cString: strerror(errno)))")
        }
        defer { fclose(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var remaining = limit ?? Int64.max
        while remaining > 0 {
            let count = fread(&buffer, 1, Int(min(Int64(buffer.count), remaining)), input)
            if count == 0 { break }
            remaining -= Int64(count)
            guard fwrite(buffer, 1, count, output) == count else {
                throw CLIFailure(.io, "cannot write \(name): \(String(cString: strerror(errno)))")
            }
        }
        guard ferror(input) == 0, fflush(output) == 0 else {
            throw CLIFailure(.io, "cannot write \(name): \(String(cString: strerror(errno)))")
        }
    }
}
#endif
