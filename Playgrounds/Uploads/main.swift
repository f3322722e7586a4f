// Uploads: a multipart form (text fields, a file part, a Data part) to httpbin's /post with upload
// progress, then files streamed from disk, then bodies produced while sent (an AsyncSequence, an
// InputStream) — echoed back by httpbin, swallowed by nginx.
//
//     swift run Uploads [HTTPBIN_URL [UPLOAD_SINK_URL]]
//
// Without arguments it uses the local test servers (httpbin, and nginx's /discard as the sink),
// starting them when needed. Exits non-zero when a check fails.
import Curlfire
import Foundation
import PlaygroundSupport

Playground.begin("Uploads")
let usage = "swift run Uploads [HTTPBIN_URL [UPLOAD_SINK_URL]]"
let httpbin = Playground.url(argument: 0, usage: usage) { TestServerDescription.shared.httpbin }
let sink = Playground.url(argument: 1, usage: usage) {
    guard let nginx = TestServerDescription.shared.nginxHTTP else { Playground.fail("the test servers have no nginx") }
    return nginx.appendingPathComponent("discard")
}
let workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-uploads-\(UUID().uuidString)")
Playground.removeOnExit(workDirectory)
do {
    try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
} catch {
    Playground.fail("cannot create \(workDirectory.path): \(error)")
}

/// Writes `data` to a new file of this run's directory.
func makeFile(_ name: String, _ data: Data) -> URL {
    let url = workDirectory.appendingPathComponent(name)
    do { try data.write(to: url) } catch { Playground.fail("cannot write \(url.path): \(error)") }
    return url
}

/// Deterministic bytes that are not text: byte i is (i × 31 + 7) mod 256 (a 64 KiB block, repeated).
func binary(_ count: Int) -> Data {
    let block = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    var data = Data(capacity: count)
    while data.count < count { data.append(block.prefix(count - data.count)) }
    return data
}

let session = SessionManager()

// MARK: - 1. A multipart form

Playground.section("POST \(httpbin.absoluteString)/post: multipart form with progress")
let notes = (1...4000).map { "line \($0): the quick brown fox jumps over the lazy dog" }.joined(separator: "\n")
let notesFile = makeFile("notes.txt", Data(notes.utf8))
let metadata = Data(#"{"client":"Curlfire","version":1}"#.utf8)
let form = MultipartFormData()
form.append(Data("curlfire".utf8), withName: "name")
form.append(Data("Swift on Linux".utf8), withName: "platform")
form.append(notesFile, withName: "notes")                 // file part: name and MIME type from the file
form.append(metadata, withName: "metadata", fileName: "metadata.json", mimeType: "application/json")
Playground.note("form: 2 text fields, notes.txt (\(Format.bytes(notes.utf8.count))), metadata.json; \(Format.bytes(form.contentLength)) encoded")
Playground.note(form.contentType)

struct Echo: Decodable, Sendable {
    let form: [String: String]
    let files: [String: String]
    let headers: [String: String]
    let data: String
}

/// Checks a transfer's upload progress reports: at least one, totals equal to the body's length,
/// completed counts never going back.
func checkProgress(_ reports: [(completed: Int64, total: Int64)], bodyLength: Int) {
    let completed = reports.map(\.completed)
    Playground.check(!reports.isEmpty && reports.allSatisfy { $0.total == Int64(bodyLength) } && completed == completed.sorted(),
                     "\(reports.count) upload progress report(s), total \(Format.bytes(bodyLength)), non-decreasing; " +
                     "the last at \(Format.bytes(completed.last ?? 0))")
}

let formBar = ProgressBar("upload")
let formReports = Recorder<(completed: Int64, total: Int64)>()
// Above 64 KiB the form is encoded to a temporary file and streamed from there (removed afterwards).
let posted = await session.upload(multipartFormData: form, usingThreshold: 64 * 1024, to: "\(httpbin.absoluteString)/post")
    .uploadProgress(queue: formBar.queue) {
        formBar.update($0)
        formReports.append(($0.completedUnitCount, $0.totalUnitCount))
    }
    .validate()
    .serializingDecodable(Echo.self).response
formBar.finish()
guard let echo = posted.value else { Playground.fail("the form upload failed: \(posted.debugDescription)") }
Playground.note("httpbin received:")
Playground.note("  form  \(echo.form.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
for (name, content) in echo.files.sorted(by: { $0.key < $1.key }) {
    Playground.note("  file  \(name): \(Format.bytes(content.utf8.count)), starting \"\(content.prefix(24))…\"")
}
Playground.note("  Content-Type \(echo.headers["Content-Type"] ?? "?")")
Playground.check(echo.form == ["name": "curlfire", "platform": "Swift on Linux"], "both text fields arrived")
Playground.check(echo.files["notes"] == notes, "the file part arrived byte for byte")
Playground.check(echo.files["metadata"] == String(decoding: metadata, as: UTF8.self), "the Data part arrived byte for byte")
Playground.check(echo.headers["Content-Type"] == form.contentType, "Content-Type carries the form's boundary")
checkProgress(formReports.all, bodyLength: Int(form.contentLength))
Playground.check(posted.metrics.map { $0.bytesSent >= Int64(form.contentLength) } ?? false,
                 "\(Format.bytes(posted.metrics?.bytesSent ?? 0)) sent in \(Format.duration(posted.timeline.requestDuration))")

// MARK: - 2. A file streamed from disk, echoed back

Playground.section("PUT \(httpbin.absoluteString)/put: a binary file streamed from disk")
let small = binary(256 * 1024)
let smallFile = makeFile("payload.bin", small)
let put = await session.upload(smallFile, to: "\(httpbin.absoluteString)/put", method: .put,
                               headers: ["Content-Type": "application/octet-stream"])
    .validate()
    .serializingDecodable(Echo.self).response
guard let putEcho = put.value else { Playground.fail("the file upload failed: \(put.debugDescription)") }
let prefix = "data:application/octet-stream;base64,"
let returned = putEcho.data.hasPrefix(prefix) ? Data(base64Encoded: String(putEcho.data.dropFirst(prefix.count))) : nil
Playground.check(returned == small, "httpbin echoed the \(Format.bytes(small.count)) file byte for byte " +
                 "(SHA-256 \(SHA256.hex(of: small).prefix(16))…)")

// MARK: - 3. A large file streamed from disk

let largeSize = 32 << 20
Playground.section("POST \(sink.absoluteString): \(Format.bytes(largeSize)) streamed from disk")
let largeFile = makeFile("large.bin", binary(largeSize))
let largeBar = ProgressBar("upload")
let largeReports = Recorder<(completed: Int64, total: Int64)>()
let streamed = await session.upload(largeFile, to: sink)
    .uploadProgress(queue: largeBar.queue) {
        largeBar.update($0)
        largeReports.append(($0.completedUnitCount, $0.totalUnitCount))
    }
    .validate()
    .serializingData().response
largeBar.finish()
Playground.check(streamed.error == nil, "status \(streamed.response?.statusCode ?? 0)\(streamed.error.map { ": \($0)" } ?? "")")
checkProgress(largeReports.all, bodyLength: largeSize)
let sent = streamed.metrics?.bytesSent ?? 0
Playground.check(sent >= Int64(largeSize), "\(Format.bytes(sent)) sent in \(Format.duration(streamed.timeline.requestDuration)) = " +
                 Format.speed(bytes: sent, seconds: streamed.timeline.requestDuration))
Playground.note(streamed.timeline.description)

// MARK: - 4. A missing file is a typed error, sent nowhere

Playground.section("Uploading a file that does not exist")
let missing = await session.upload(workDirectory.appendingPathComponent("missing.bin"), to: sink).serializingData().response
if case let .uploadableReadFailed(path, message)? = missing.error {
    Playground.check(missing.response == nil, "uploadableReadFailed(\(URL(fileURLWithPath: path).lastPathComponent)): \(message)")
} else {
    Playground.check(false, "expected uploadableReadFailed, got \(missing.error.map { "\($0)" } ?? "success")")
}

// MARK: - 5. Bodies produced while they are sent: an AsyncSequence and an InputStream

Playground.section("POST \(httpbin.absoluteString)/post: chunks of an AsyncSequence, then an InputStream")
let lines = AsyncStream<Data> { continuation in
    for index in 1...5 { continuation.yield(Data("line \(index)\n".utf8)) }
    continuation.finish()
}
let generated = await session.upload(lines, to: "\(httpbin.absoluteString)/post", headers: ["Content-Type": "text/plain"])
    .validate()
    .serializingDecodable(Echo.self).response
let expectedLines = (1...5).map { "line \($0)\n" }.joined()
Playground.check(generated.value?.data == expectedLines,
                 "five chunks sent chunked as they were produced, echoed as \(Format.bytes(expectedLines.utf8.count))")
Playground.check(generated.value?.headers["Transfer-Encoding"] == "chunked", "no length given: Transfer-Encoding: chunked")
let fromStream = await session.upload(InputStream(data: small), to: "\(httpbin.absoluteString)/put", method: .put,
                                      headers: ["Content-Type": "application/octet-stream", "Content-Length": "\(small.count)"])
    .validate()
    .serializingDecodable(Echo.self).response
let streamedBack = fromStream.value.flatMap { echo in
    echo.data.hasPrefix(prefix) ? Data(base64Encoded: String(echo.data.dropFirst(prefix.count))) : nil
}
Playground.check(streamedBack == small, "an InputStream read on a worker thread, \(Format.bytes(small.count)) with Content-Length, " +
                 "echoed byte for byte")

Playground.finish()
