// Downloads straight to disk: a live progress bar, a cancel half-way that leaves resume data, a
// resume that completes the file byte for byte, and a large file checked against the server's
// SHA-256.
//
//     swift run Downloads [HTTPBIN_URL [LARGE_FILE_URL [SHA256]]]
//
// Without arguments it uses the local test servers (httpbin and nginx's 64 MiB /large.bin),
// starting them when needed. Exits non-zero when a check fails.
import Curlfire
import Foundation
import PlaygroundSupport

Playground.begin("Downloads")
let usage = "swift run Downloads [HTTPBIN_URL [LARGE_FILE_URL [SHA256]]]"
let httpbin = Playground.url(argument: 0, usage: usage) { TestServerDescription.shared.httpbin }
let workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-downloads-\(UUID().uuidString)")
Playground.removeOnExit(workDirectory)

/// Where finished downloads go: a named file in this run's directory, replacing any earlier one.
func destination(_ name: String) -> DownloadRequest.DownloadFileDestination {
    let url = workDirectory.appendingPathComponent(name)
    return { _, _ in (url, [.createIntermediateDirectories, .removePreviousFile]) }
}

func fileSize(_ url: URL?) -> Int {
    guard let url, let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return -1 }
    return (attributes[.size] as? NSNumber)?.intValue ?? -1
}

// MARK: - 1. Cancel half-way, keep the resume data

let size = 102_400
// httpbin's /range sends its bytes over `duration` seconds, in `chunk_size` pieces, and honours Range.
let slowURL = "\(httpbin.absoluteString)/range/\(size)?duration=2&chunk_size=2048"
let session = SessionManager()

Playground.section("GET \(slowURL): cancel at 50 %")
let firstBar = ProgressBar("download")
let once = Once()
let firstRequest = session.download(slowURL)
let first = await firstRequest
    .downloadProgress(queue: firstBar.queue) { progress in
        firstBar.update(progress)
        if progress.fractionCompleted >= 0.5, once.claim() { firstRequest.cancel() }
    }
    .serializingDownloadedFileURL().response
firstBar.finish()
let partial = fileSize(first.temporaryURL)
Playground.check(first.error?.isExplicitlyCancelledError == true, "cancelled: \(first.error.map { "\($0)" } ?? "no error")")
Playground.check(partial >= size / 2 && partial < size, "the partial file holds \(Format.bytes(partial)) of \(Format.bytes(size))")
guard let resumeData = first.resumeData else { Playground.fail("cancel() left no resume data: \(first.debugDescription)") }
if let json = try? JSONSerialization.jsonObject(with: resumeData) as? [String: Any] {
    Playground.note("resume data (\(resumeData.count) bytes): bytesReceived \(json["bytesReceived"] ?? "?"), " +
                    "entityTag \(json["entityTag"] ?? "-"), totalBytes \(json["totalBytes"] ?? "?")")
}

// MARK: - 2. Resume to the end

Playground.section("download(resumingWith:) to a destination")
let resumeBar = ProgressBar("resume  ")
let resumed = await session.download(resumingWith: resumeData, to: destination("range.bin"))
    .downloadProgress(queue: resumeBar.queue) { resumeBar.update($0) }
    .validate()
    .serializingDownloadedFileURL().response
resumeBar.finish()
guard let resumedFile = resumed.value else { Playground.fail("the resumed download failed: \(resumed.debugDescription)") }
Playground.check(resumed.response?.statusCode == 206, "the server answered \(resumed.response?.statusCode ?? 0) Partial Content to Range: bytes=\(partial)-")
Playground.check(fileSize(resumedFile) == size, "\(resumedFile.lastPathComponent) holds \(Format.bytes(fileSize(resumedFile)))")
Playground.note("received \(Format.bytes(resumed.metrics?.bytesReceived ?? 0)) in \(Format.duration(resumed.timeline.requestDuration))")
Playground.note(resumed.timeline.description)

// The server's bytes, fetched in one piece, are the reference.
let reference = await session.request("\(httpbin.absoluteString)/range/\(size)").validate().serializingData().response
guard let referenceBody = reference.value else { Playground.fail("cannot fetch the reference body: \(reference.debugDescription)") }
let expected = SHA256.hex(of: referenceBody)
let actual = SHA256.hex(ofFile: resumedFile) ?? "unreadable"
Playground.check(actual == expected, "SHA-256 of the resumed file equals the server's: \(actual.prefix(16))…")

// MARK: - 3. A large file straight to disk

let largeURL = Playground.url(argument: 1, usage: usage) {
    guard let nginx = TestServerDescription.shared.nginxHTTP else { Playground.fail("the test servers have no nginx") }
    return nginx.appendingPathComponent("large.bin")
}
let largeSHA: String = {
    if Playground.arguments.count > 2 { return Playground.arguments[2].lowercased() }
    if Playground.arguments.count > 1 {
        Playground.fail("give the large file's SHA-256 after its URL\nusage: \(usage)")
    }
    guard let sha = TestServerDescription.shared.largeFileSHA256 else { Playground.fail("the test servers have no large file") }
    return sha
}()

Playground.section("GET \(largeURL.absoluteString) to disk")
let largeBar = ProgressBar("download")
let large = await session.download(largeURL, to: destination("large.bin"))
    .downloadProgress(queue: largeBar.queue) { largeBar.update($0) }
    .validate()
    .serializingDownloadedFileURL().response
largeBar.finish()
guard let largeFile = large.value else { Playground.fail("the large download failed: \(large.debugDescription)") }
let largeSize = fileSize(largeFile)
Playground.note("\(Format.bytes(largeSize)) in \(Format.duration(large.timeline.requestDuration)) = " +
                Format.speed(bytes: largeSize, seconds: large.timeline.requestDuration))
Playground.note(large.timeline.description)
Playground.note(large.metrics?.description ?? "no metrics")
Playground.check(large.destinationURL == largeFile && large.temporaryURL != largeFile,
                 "moved from \(large.temporaryURL?.lastPathComponent ?? "?") to \(largeFile.lastPathComponent)")
let largeActual = SHA256.hex(ofFile: largeFile) ?? "unreadable"
Playground.check(largeActual == largeSHA, "SHA-256 equals the server's: \(largeActual.prefix(16))…")

// MARK: - 4. Errors are typed

Playground.section("A destination that already exists, without .removePreviousFile")
let taken = workDirectory.appendingPathComponent("range.bin")
let refused = await session.download("\(httpbin.absoluteString)/bytes/1024", to: { _, _ in (taken, []) })
    .serializingDownloadedFileURL().response
if case let .downloadDestinationUnusable(error, destination)? = refused.error {
    // Checked before anything is requested: the server never sends the body.
    Playground.check(destination == taken && (error as? POSIXError)?.code == .EEXIST,
                     "downloadDestinationUnusable (EEXIST) before any byte was requested: \(refused.error!)")
} else {
    Playground.check(false, "expected downloadDestinationUnusable, got \(refused.error.map { "\($0)" } ?? "success")")
}

Playground.finish()
