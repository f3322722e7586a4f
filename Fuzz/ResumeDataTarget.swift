import Foundation
import FoundationNetworking

/// `resumedata`: resume data decoding, from raw bytes and from JSON objects whose fields are built
/// from the bytes (right or wrong format, versions, URLs, methods, lengths, validators).
///
/// Invariants: decoding gives resume data or `invalidResumeData`, nothing else; for built objects it
/// succeeds exactly when the documented rules hold (the method: ASCII letters only); decoded data re-encodes to JSON that decodes to an
/// equal value and encodes to the same bytes; the resuming request has the URL, the method (as
/// `URLRequest` spells it), headers,
/// `Range: bytes=N-` (N one less when the file is complete) and `If-Range` from the validators (unless
/// it holds CR/LF/NUL, which Foundation rewrites and the engine refuses);
/// `checkFile` refuses a file outside the temporary directory with `invalidResumeData`.
enum ResumeDataTarget {
    static func run(_ input: FuzzInput) {
        var input = input
        if input.choose(4) == 0 {
            check(Data(input.remaining), expectedValid: nil)
            return
        }
        let (object, valid) = buildObject(&input)
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        check(data, expectedValid: valid)
    }

    private static func check(_ data: Data, expectedValid: Bool?) {
        let resume: DownloadResumeData
        do {
            resume = try DownloadResumeData.decode(data)
        } catch let .invalidResumeData(reason) {
            FuzzCheck.require(expectedValid != true, "valid resume data refused: \(reason)\n\(String(decoding: data, as: UTF8.self))")
            return
        } catch {
            FuzzCheck.fail("unexpected error \(error)")
        }
        FuzzCheck.require(expectedValid != false, "invalid resume data accepted: \(String(decoding: data, as: UTF8.self))")
        guard let encoded = resume.encoded() else { FuzzCheck.fail("decoded resume data does not encode") }
        guard let again = try? DownloadResumeData.decode(encoded) else { FuzzCheck.fail("re-encoded resume data does not decode") }
        FuzzCheck.require(again == resume, "round trip differs")
        FuzzCheck.require(again.encoded() == encoded, "re-encoding differs")

        guard let request = try? resume.makeRequest() else { FuzzCheck.fail("makeRequest failed for accepted resume data") }
        FuzzCheck.require(request.url?.absoluteString == URL(string: resume.request.url)?.absoluteString, "URL differs")
        var probe = URLRequest(url: URL(string: "https://example.com/")!)
        probe.httpMethod = resume.request.method // Foundation upper-cases get/head/post/put/delete/connect
        FuzzCheck.require(request.httpMethod == probe.httpMethod, "method \(request.httpMethod.debugDescription) for \(resume.request.method)")
        let from = resume.totalBytes == resume.bytesReceived ? resume.bytesReceived - 1 : resume.bytesReceived
        FuzzCheck.require(request.value(forHTTPHeaderField: "Range") == "bytes=\(from)-", "Range header")
        let ifRange = request.value(forHTTPHeaderField: "If-Range")
        if ifRange != resume.validators.ifRange {
            // Foundation rewrites a header value holding CR, LF or NUL; the engine refuses such a
            // request before sending it (RequestChecks), so only then may the two differ.
            let unsafe = resume.validators.ifRange.map { !HTTPHeader(name: "If-Range", value: $0).isInjectionSafe } ?? false
            FuzzCheck.require(unsafe, "If-Range \(ifRange.debugDescription) vs \(resume.validators.ifRange.debugDescription)")
        }
        FuzzCheck.require(resume.validators.ifRange.map { !$0.hasPrefix("W/") } ?? false, "a weak or missing If-Range")
        do {
            try resume.checkFile(temporaryDirectory: URL(fileURLWithPath: "/nonexistent-curlfire-fuzz"))
            FuzzCheck.fail("checkFile accepted a file outside its directory")
        } catch .invalidResumeData {
        } catch {
            FuzzCheck.fail("checkFile: unexpected error \(error)")
        }
    }

    /// A resume-data JSON object and whether the documented rules accept it.
    private static func buildObject(_ input: inout FuzzInput) -> ([String: Any], Bool) {
        var object: [String: Any] = [:]
        var valid = true
        switch input.choose(6) {
        case 0: valid = false
        case 1: object["format"] = input.string(); valid = object["format"] as? String == DownloadResumeData.formatName
        default: object["format"] = DownloadResumeData.formatName
        }
        let version = [1, 1, 1, 0, 2, -1, Int.max][input.choose(7)]
        if input.choose(8) == 0 { object["version"] = "1"; valid = false } else { object["version"] = version }
        valid = valid && version == 1

        let received = [Int64(1), 100, 0, -5, Int64.max, Int64(input.uint32())][input.choose(6)]
        object["bytesReceived"] = received
        valid = valid && received > 0
        switch input.choose(4) {
        case 0: break
        case 1: object["totalBytes"] = received
        case 2: object["totalBytes"] = received &- 1; valid = valid && received &- 1 >= received
        default: let total = Int64(input.uint32()); object["totalBytes"] = total; valid = valid && total >= received
        }
        let url = ["https://example.com/f", "http://h:8080/a?b#c", "ftp://h/f", "https:///nohost", "relative",
                   "https://exa mple.com/", input.string()][input.choose(7)]
        let method = ["GET", "get", "", "G ET", "POST", input.string(maxLength: 6)][input.choose(6)]
        var headers: [String: String] = [:]
        for _ in 0..<input.choose(3) { headers[input.string(maxLength: 6)] = input.string() }
        object["request"] = ["url": url, "method": method, "headers": headers]
        let parsed = URL(string: url)
        let scheme = parsed?.scheme?.lowercased()
        valid = valid && parsed?.host != nil && (scheme == "http" || scheme == "https")
        valid = valid && !method.isEmpty && method.utf8.allSatisfy { (65...90).contains($0) || (97...122).contains($0) }
        object["temporaryFile"] = "/tmp/curlfire-download-\(UUID()).tmp"

        let tag = [nil, "\"abc\"", "W/\"weak\"", "   ", input.string()][input.choose(5)]
        let modified = [nil, "Tue, 01 Apr 2025 10:00:00 GMT", "", input.string()][input.choose(4)]
        if let tag { object["entityTag"] = tag }
        if let modified { object["lastModified"] = modified }
        let trimmedTag = tag?.trimmingCharacters(in: .whitespaces) ?? ""
        let trimmedModified = modified?.trimmingCharacters(in: .whitespaces) ?? ""
        valid = valid && ((!trimmedTag.isEmpty && !trimmedTag.hasPrefix("W/")) || !trimmedModified.isEmpty)
        return (object, valid)
    }
}
