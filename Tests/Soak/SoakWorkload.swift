import Curlfire
import Foundation

/// The operations the soak mixes, each classifying its own outcome as expected or not.
///
/// Two sessions: `main` (default configuration) for everything but timeouts, and `short` (a 2 s
/// resource timeout) for requests that must time out. Both are released with the workload.
final class SoakWorkload: Sendable {
    let main: SessionManager
    let short: SessionManager
    let servers: SoakServers
    /// Where downloads land and upload files live; emptied as the soak goes.
    let directory: URL
    /// The upload file's bytes (a text file, so httpbin echoes it verbatim).
    let uploadText: String
    let uploadFile: URL
    /// nginx's /1k.bin, read once before the run.
    let oneK: Data

    static let smallText = Data("Hello, Curlfire!\n".utf8)

    init(servers: SoakServers, directory: URL, oneK: Data) throws {
        self.servers = servers
        self.directory = directory
        self.oneK = oneK
        main = SessionManager(configuration: SessionConfiguration())
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 2
        short = SessionManager(configuration: configuration)
        uploadText = (0..<4096).map { "line \($0) of the soak's upload file\n" }.joined()
        uploadFile = directory.appendingPathComponent("upload.txt")
        try Data(uploadText.utf8).write(to: uploadFile)
    }

    /// The mixed lane's operations and their weights.
    static let mix: [(weight: Int, kind: String)] = [
        (40, "small-get"), (10, "json-decode"), (8, "download"), (3, "download-cancel-resume"),
        (3, "download-fault-resume"), (6, "upload-data"), (4, "upload-file"), (4, "upload-multipart"),
        (4, "cancel"), (2, "task-cancel"), (4, "not-found"), (3, "refused"), (4, "fault"),
    ]

    /// Runs one operation of `kind`.
    func run(_ kind: String, index: Int) async -> SoakOutcome {
        switch kind {
        case "small-get": return await smallGet()
        case "json-decode": return await jsonDecode()
        case "download": return await download(index)
        case "download-cancel-resume": return await downloadCancelResume(index)
        case "download-fault-resume": return await downloadFaultResume(index)
        case "upload-data": return await uploadData()
        case "upload-file": return await uploadFileOperation()
        case "upload-multipart": return await uploadMultipart(index)
        case "cancel": return await cancel()
        case "task-cancel": return await taskCancel()
        case "not-found": return await notFound()
        case "refused": return await refused()
        case "fault": return await fault(index)
        case "timeout": return await timeout()
        default: return .unexpected(kind, "unknown operation")
        }
    }

    // MARK: - Requests

    private func smallGet() async -> SoakOutcome {
        let response = await main.request(servers.nginx.appendingPathComponent("small.txt")).validate().serializingData().response
        return .check("small-get", response.value == Self.smallText, response.debugDescription)
    }

    private struct Slideshow: Decodable, Sendable {
        struct Show: Decodable, Sendable { let title: String; let slides: [Slide] }
        struct Slide: Decodable, Sendable { let title: String }
        let slideshow: Show
    }

    private func jsonDecode() async -> SoakOutcome {
        let response = await main.request(servers.httpbin.appendingPathComponent("json")).validate()
            .serializingDecodable(Slideshow.self).response
        return .check("json-decode", response.value?.slideshow.title == "Sample Slide Show"
                      && response.value?.slideshow.slides.count == 2, response.debugDescription)
    }

    private func notFound() async -> SoakOutcome {
        let response = await main.request(servers.nginx.appendingPathComponent("missing-\(UUID().uuidString)"))
            .validate().serializingData().response
        return .check("not-found", response.error?.responseCode == 404, response.debugDescription)
    }

    private func refused() async -> SoakOutcome {
        let response = await main.request("http://127.0.0.1:1/").serializingData().response
        return .check("refused", response.error?.transportErrorCode == .cannotConnect, response.debugDescription)
    }

    /// A server fault: each route its typed cause.
    private func fault(_ index: Int) async -> SoakOutcome {
        let faults: [(String, TransportErrorCode)] = [
            ("/reset-mid-body", .connectionLost), ("/short-body", .connectionLost), ("/bad-chunked", .connectionLost),
            ("/bad-status", .badServerResponse), ("/reset-before-status", .connectionLost),
        ]
        let (path, code) = faults[index % faults.count]
        let response = await main.request(servers.fault.absoluteString + path).serializingData().response
        return .check("fault", response.error?.transportErrorCode == code, "\(path): \(response.debugDescription)")
    }

    /// A stall after half the body, on the session with a 2 s resource timeout.
    private func timeout() async -> SoakOutcome {
        let started = Date()
        let response = await short.request(servers.fault.absoluteString + "/resumable/stall?size=20000").serializingData().response
        let elapsed = Date().timeIntervalSince(started)
        return .check("timeout", response.error?.transportErrorCode == .timedOut && elapsed < 4,
                      String(format: "%.1f s: ", elapsed) + response.debugDescription)
    }

    // MARK: - Cancellation

    private func cancel() async -> SoakOutcome {
        let request = main.request(servers.httpbin.appendingPathComponent("delay/3"))
        let pending = request.serializingData()
        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...80)))
        request.cancel()
        let response = await pending.response
        return .check("cancel", response.error?.isExplicitlyCancelledError == true, response.debugDescription)
    }

    private func taskCancel() async -> SoakOutcome {
        let url = servers.httpbin.appendingPathComponent("delay/3")
        let session = main
        let task = Task { await session.request(url).serializingData().response.error }
        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...80)))
        task.cancel()
        let error = await task.value
        return .check("task-cancel", error?.isExplicitlyCancelledError == true, "\(error.map { "\($0)" } ?? "no error")")
    }

    // MARK: - Downloads

    private func destination(_ name: String) -> DownloadRequest.DownloadFileDestination {
        let url = directory.appendingPathComponent(name)
        return { _, _ in (url, [.removePreviousFile]) }
    }

    /// Checks a finished download's file against `expected`, then removes it.
    private func verify(_ kind: String, _ response: DownloadResponse<URL>, expected: Data, status: Int) -> SoakOutcome {
        defer { [response.destinationURL, response.temporaryURL].compactMap { $0 }.forEach { try? FileManager.default.removeItem(at: $0) } }
        guard let file = response.value, response.response?.statusCode == status else {
            return .unexpected(kind, response.debugDescription)
        }
        return .check(kind, FileManager.default.contents(atPath: file.path) == expected, "wrong bytes: \(response.debugDescription)")
    }

    private func download(_ index: Int) async -> SoakOutcome {
        let response = await main.download(servers.nginx.appendingPathComponent("1k.bin"), to: destination("1k-\(index).bin"))
            .validate().serializingDownloadedFileURL().response
        return verify("download", response, expected: oneK, status: 200)
    }

    /// httpbin's /range/N trickled over a second, cancelled at 30 %, resumed to the end.
    private func downloadCancelResume(_ index: Int) async -> SoakOutcome {
        let kind = "download-cancel-resume"
        let size = 40_000
        let expected = Data((0..<size).map { UInt8(97 + $0 % 26) })
        let url = servers.httpbin.absoluteString + "/range/\(size)?duration=1&chunk_size=2000"
        let once = CancelOnce()
        let request = main.download(url, to: destination("range-\(index).bin"))
        let first = await request.downloadProgress { progress in
            if progress.fractionCompleted >= 0.3, once.claim() { request.cancel() }
        }.serializingDownloadedFileURL().response
        if first.error == nil { return verify(kind, first, expected: expected, status: 200) } // finished before the cancel
        guard first.error?.isExplicitlyCancelledError == true, let resumeData = first.resumeData else {
            first.temporaryURL.map { try? FileManager.default.removeItem(at: $0) }
            return .unexpected(kind, "cancel left no resume data: \(first.debugDescription)")
        }
        let resumed = await main.download(resumingWith: resumeData, to: destination("range-\(index).bin")).validate()
            .serializingDownloadedFileURL().response
        return verify(kind, resumed, expected: expected, status: 206)
    }

    /// The fault server drops the connection half-way; the resume data finishes the file.
    private func downloadFaultResume(_ index: Int) async -> SoakOutcome {
        let kind = "download-fault-resume"
        let size = 50_000
        let expected = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let fault = ["reset-mid-body", "short-body", "bad-chunked"][index % 3]
        let url = servers.fault.absoluteString + "/resumable/\(fault)?size=\(size)"
        let first = await main.download(url, to: destination("fault-\(index).bin")).serializingDownloadedFileURL().response
        guard first.error?.transportErrorCode == .connectionLost, let resumeData = first.resumeData,
              !FileManager.default.fileExists(atPath: directory.appendingPathComponent("fault-\(index).bin").path) else {
            first.temporaryURL.map { try? FileManager.default.removeItem(at: $0) }
            return .unexpected(kind, "\(fault): \(first.debugDescription)")
        }
        let resumed = await main.download(resumingWith: resumeData, to: destination("fault-\(index).bin")).validate()
            .serializingDownloadedFileURL().response
        return verify(kind, resumed, expected: expected, status: 206)
    }

    // MARK: - Uploads

    private func uploadData() async -> SoakOutcome {
        let body = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0) })
        let response = await main.upload(body, to: servers.nginx.appendingPathComponent("discard")).validate()
            .serializingData().response
        return .check("upload-data", response.response?.statusCode == 204, response.debugDescription)
    }

    private struct Echo: Decodable, Sendable {
        let data: String?
        let form: [String: String]?
        let files: [String: String]?
    }

    private func uploadFileOperation() async -> SoakOutcome {
        let response = await main.upload(uploadFile, to: servers.httpbin.appendingPathComponent("anything"),
                                         method: .put, headers: ["Content-Type": "text/plain"])
            .validate().serializingDecodable(Echo.self).response
        return .check("upload-file", response.value?.data == uploadText, response.debugDescription)
    }

    private func uploadMultipart(_ index: Int) async -> SoakOutcome {
        let text = uploadText
        let file = uploadFile
        let response = await main.upload(multipartFormData: { form in
            form.append(Data("value \(index)".utf8), withName: "field")
            form.append(file, withName: "file", fileName: "upload.txt", mimeType: "text/plain")
        }, usingThreshold: index % 2 == 0 ? 0 : MultipartFormData.encodingMemoryThreshold, // even: encoded on disk
           to: servers.httpbin.appendingPathComponent("post")).validate().serializingDecodable(Echo.self).response
        return .check("upload-multipart", response.value?.form?["field"] == "value \(index)" && response.value?.files?["file"] == text,
                      response.debugDescription)
    }
}

/// Lets exactly one progress report cancel its request.
final class CancelOnce: Sendable {
    private let claimed = Locked(false)
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
