import Curlfire
import Foundation
import XCTest

/// Uploads from memory, files and multipart forms against httpbin (echo) and nginx (a discarding sink).
final class UploadTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func makeFile(_ name: String, megabytes: Int) throws -> URL {
        let url = directory.appendingPathComponent(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        for _ in 0..<megabytes { try handle.write(contentsOf: chunk) }
        try handle.close()
        return url
    }

    private func multipartTemporaryFiles() -> Set<String> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curlfire.multipart").path
        return Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    func testThatDataUploadsArriveAsSent() async throws {
        let payload = Data("hello from curlfire".utf8)
        let url1 = try Live.httpbin("/post")
        let response = await awaitResponse {
            Curlfire.upload(payload, to: url1, headers: ["Content-Type": "text/plain"])
                .validate().responseJSON(completionHandler: $0)
        }
        XCTAssertEqual(jsonObject(response)["data"] as? String, "hello from curlfire")
    }

    func testThatASmallUploadsProgressEndsAtOneBeforeTheResponse() async throws {
        let payload = Data(repeating: 0x61, count: 3_000)
        let progress = Recorder<Int64>()
        let url2 = try Live.httpbin("/post")
        let response = await awaitResponse {
            Curlfire.upload(payload, to: url2, headers: ["Content-Type": "text/plain"])
                .uploadProgress { progress.append($0.completedUnitCount) }
                .validate().responseJSON(completionHandler: $0)
        }
        XCTAssertNil(response.error)
        // The progress handler and the response share the session's serial callback queue, so every
        // report, the final one included, has run by the time the response handler runs.
        XCTAssertEqual(progress.all.last, 3_000, "reports: \(progress.all)")
        XCTAssertEqual(progress.all, progress.all.sorted())
    }

    func testThatFileUploadsStreamWithPUTAndPATCH() async throws {
        let file = directory.appendingPathComponent("small.txt")
        try Data("file body".utf8).write(to: file)
        for method in [HTTPMethod.put, .patch] {
            let url = try Live.httpbin("/\(method.rawValue.lowercased())")
            let response = await awaitResponse {
                Curlfire.upload(file, to: url, method: method)
                    .validate().responseJSON(completionHandler: $0)
            }
            XCTAssertEqual(jsonObject(response)["data"] as? String, "file body", "\(method)")
        }
    }

    func testThatAMissingUploadFileIsATypedError() async throws {
        let missing = directory.appendingPathComponent("nope.bin")
        let response = await Curlfire.upload(missing, to: try Live.httpbin("/post")).serializingData().response
        guard case .uploadableReadFailed? = response.error else { return XCTFail("\(response.debugDescription)") }
    }

    func testThatMultipartFieldsAndFilesArriveAsSent() async throws {
        let file = directory.appendingPathComponent("notes.txt")
        try Data("file contents".utf8).write(to: file)
        let url3 = try Live.httpbin("/post")
        let response = await awaitResponse {
            Curlfire.upload(multipartFormData: { form in
                form.append(Data("steve".utf8), withName: "name")
                form.append(Data("çà и 日本".utf8), withName: "unicode")
                form.append(file, withName: "attachment")
            }, to: url3).validate().responseJSON(completionHandler: $0)
        }
        let json = jsonObject(response)
        let form = json["form"] as? [String: Any]
        XCTAssertEqual(form?["name"] as? String, "steve")
        XCTAssertEqual(form?["unicode"] as? String, "çà и 日本")
        XCTAssertEqual((json["files"] as? [String: Any])?["attachment"] as? String, "file contents")
        XCTAssertTrue(((json["headers"] as? [String: Any])?["Content-Type"] as? String)?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    func testThatA20MBMultipartUploadGoesThroughDiskWithLowPeakMemoryAndLeavesNoFile() async throws {
        let servers = try Live.servers()
        let sink = try XCTUnwrap(servers.nginxHTTP).appendingPathComponent("discard")
        let big = try makeFile("big.bin", megabytes: 20)
        let before = multipartTemporaryFiles()
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let progress = Recorder<Double>()
        let response = await awaitResponse {
            Curlfire.upload(multipartFormData: { $0.append(big, withName: "big") }, to: sink)
                .uploadProgress { progress.append($0.fractionCompleted) }
                .validate().response(completionHandler: $0)
        }
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        XCTAssertNil(response.error)
        XCTAssertEqual(response.response?.statusCode, 204)
        XCTAssertGreaterThan(response.metrics?.bytesSent ?? 0, 20 << 20)
        XCTAssertLessThan(growth, 8 * 1024, "peak memory grew by \(growth) KiB for a 20 MiB upload")
        XCTAssertEqual(multipartTemporaryFiles(), before, "the encoded form is removed after the upload")
        let fractions = progress.all
        XCTAssertEqual(fractions, fractions.sorted(), "upload progress is non-decreasing")
        XCTAssertEqual(fractions.last ?? 0, 1.0, accuracy: 1e-9)
        print("20 MiB multipart upload: peak RSS growth \(growth) KiB")
    }

    func testThatA50MBFileUploadStreamsFromDisk() async throws {
        let servers = try Live.servers()
        let sink = try XCTUnwrap(servers.nginxHTTP).appendingPathComponent("discard")
        let big = try makeFile("fifty.bin", megabytes: 50)
        try XCTSkipUnless(PeakMemory.reset(), "/proc/self/clear_refs is not writable here")
        let baseline = try PeakMemory.kilobytes("VmRSS")
        let response = await Curlfire.upload(big, to: sink, method: .put).validate().serializingData().response
        let growth = try PeakMemory.kilobytes("VmHWM") - baseline
        XCTAssertEqual(response.response?.statusCode, 204, response.debugDescription)
        XCTAssertEqual(response.metrics.map { $0.bytesSent >= 50 << 20 }, true)
        XCTAssertLessThan(growth, 8 * 1024, "peak memory grew by \(growth) KiB for a 50 MiB file upload")
        print("50 MiB file upload: peak RSS growth \(growth) KiB")
    }

    func testThatACancelledOnDiskMultipartUploadLeavesNoFile() async throws {
        let big = try makeFile("cancel.bin", megabytes: 12)
        let before = multipartTemporaryFiles()
        let request = Curlfire.upload(multipartFormData: { $0.append(big, withName: "big") },
                                      to: try Live.httpbin("/delay/5"))
        XCTAssertEqual(multipartTemporaryFiles().count, before.count + 1, "the form was encoded to disk")
        request.cancel()
        let response = await request.serializingData().response
        guard case .explicitlyCancelled? = response.error else { return XCTFail("\(response.debugDescription)") }
        XCTAssertEqual(multipartTemporaryFiles(), before)
    }

    func testThatAGETWithABodyIsRefusedBeforeSending() async throws {
        let response = await Curlfire.upload(Data("x".utf8), to: try Live.httpbin("/get"), method: .get)
            .serializingData().response
        guard case .bodyDataInGETRequest? = response.error else { return XCTFail("\(response.debugDescription)") }
        let allowed = await Curlfire.upload(Data("x".utf8), to: try Live.httpbin("/anything"), method: .get)
            .allowingBodyInGET().serializingJSON().response
        XCTAssertEqual((allowed.value as? [String: Any])?["data"] as? String, "x")
    }

    func testThatParameterEncodingsReachTheServer() async throws {
        let url4 = try Live.httpbin("/post")
        let form = await awaitResponse {
            Curlfire.request(url4, method: .post, parameters: ["a": [1, 2], "b": ["c": true]],
                             encoding: URLEncoding.default).validate().responseJSON(completionHandler: $0)
        }
        let fields = jsonObject(form)["form"] as? [String: Any]
        XCTAssertEqual(fields?["a[]"] as? [String], ["1", "2"])
        XCTAssertEqual(fields?["b[c]"] as? String, "1")
        struct Login: Encodable, Sendable { let user: String; let remember: Bool }
        let json = await Curlfire.request(try Live.httpbin("/anything"), method: .post, parameters: Login(user: "ann", remember: true),
                                          encoder: JSONParameterEncoder.default).serializingJSON().response
        XCTAssertEqual(((json.value as? [String: Any])?["json"] as? [String: Any])?["user"] as? String, "ann")
    }
}

/// Resident memory of this process, from /proc/self/status.
enum PeakMemory {
    /// Resets VmHWM to the current RSS (`echo 5 > /proc/self/clear_refs`).
    static func reset() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// A `kB` field of /proc/self/status (`VmRSS`, `VmHWM`).
    static func kilobytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            if let value = line.split(separator: " ").compactMap({ Int($0) }).first { return value }
        }
        throw CocoaError(.fileReadCorruptFile)
    }
}
