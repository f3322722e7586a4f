import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
#endif

/// The validators of a partially downloaded entity, sent back as `If-Range` when resuming.
struct ResumeValidators: Sendable, Codable, Equatable {
    /// The `ETag` (weak tags are kept but never sent as `If-Range`).
    var entityTag: String?
    /// The `Last-Modified` date, as the server wrote it.
    var lastModified: String?

    init(entityTag: String? = nil, lastModified: String? = nil) {
        self.entityTag = entityTag?.trimmingCharacters(in: .whitespaces).nilIfEmpty
        self.lastModified = lastModified?.trimmingCharacters(in: .whitespaces).nilIfEmpty
    }

    var isEmpty: Bool { entityTag == nil && lastModified == nil }

    /// The `If-Range` value: a strong `ETag`, else `Last-Modified` (RFC 9110 forbids weak tags there).
    var ifRange: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// Whether a range request can be made safe with `If-Range`.
    var canValidateRange: Bool { ifRange != nil }
}

/// Curlfire's resume data: what `cancel()` (or a failure after bytes arrived) leaves in
/// ``DefaultDownloadResponse/resumeData`` and ``download(resumingWith:to:)`` reads back.
///
/// Format, version 1 — a UTF-8 JSON object with sorted keys:
///
/// ```json
/// {
///   "bytesReceived": 1048576,                       // bytes of the partial file to keep
///   "entityTag": "\"5f3c-1a2b\"",                    // optional: the response's ETag
///   "format": "org.curlfire.resume-data",
///   "lastModified": "Tue, 01 Apr 2025 10:00:00 GMT", // optional: the response's Last-Modified
///   "request": { "headers": { "Accept": "*/*" }, "method": "GET", "url": "https://host/file" },
///   "temporaryFile": "/tmp/curlfire-download-<UUID>.tmp",
///   "totalBytes": 67108864,                          // optional: the entity's full length
///   "version": 1
/// }
/// ```
///
/// Resume data is produced only when the entity has a strong `ETag` or a `Last-Modified` date (so
/// `If-Range` can tell whether it changed) and its body was not content-encoded. It holds the request
/// headers, `Authorization` included when it was a header: store it like a credential. A reader
/// accepts its own version and refuses newer ones; the partial file must be a Curlfire download file
/// in the current temporary directory.
struct DownloadResumeData: Codable, Sendable, Equatable {
    /// The value of ``format``.
    static let formatName = "org.curlfire.resume-data"
    /// The version this code writes and the newest it reads.
    static let currentVersion = 1

    /// What is needed to send the request again.
    struct RequestInfo: Codable, Sendable, Equatable {
        var url: String
        var method: String
        var headers: [String: String]

        init(url: String, method: String, headers: [String: String]) {
            self.url = url
            self.method = method
            self.headers = headers
        }

        /// The request's URL, method and headers, without the range headers a resume adds itself.
        init?(_ request: URLRequest) {
            guard let url = request.url else { return nil }
            self.url = url.absoluteString
            method = request.httpMethod ?? "GET"
            headers = (request.allHTTPHeaderFields ?? [:]).filter {
                !["range", "if-range"].contains($0.key.lowercased())
            }
        }
    }

    var format = Self.formatName
    var version = Self.currentVersion
    var request: RequestInfo
    var temporaryFile: String
    var bytesReceived: Int64
    var totalBytes: Int64?
    var entityTag: String?
    var lastModified: String?

    init(request: RequestInfo, temporaryFile: URL, bytesReceived: Int64, totalBytes: Int64?,
         validators: ResumeValidators) {
        self.request = request
        self.temporaryFile = temporaryFile.path
        self.bytesReceived = bytesReceived
        self.totalBytes = totalBytes
        entityTag = validators.entityTag
        lastModified = validators.lastModified
    }

    var validators: ResumeValidators { ResumeValidators(entityTag: entityTag, lastModified: lastModified) }

    /// The JSON bytes (sorted keys, so equal resume data encodes equally).
    func encoded() -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try? encoder.encode(self)
    }

    /// Reads and checks resume data; every problem is ``CurlfireError/invalidResumeData(reason:)``.
    static func decode(_ data: Data) throws(CurlfireError) -> DownloadResumeData {
        struct Header: Decodable { var format: String?; var version: Int? }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .invalidResumeData(reason: "it is not a JSON object (\(data.count) bytes)")
        }
        guard header.format == formatName else {
            throw .invalidResumeData(reason: "its format is \(header.format.map { "\"\($0)\"" } ?? "missing"), "
                                     + "not \"\(formatName)\"")
        }
        guard let version = header.version, version >= 1 else { throw .invalidResumeData(reason: "it has no valid version") }
        guard version <= currentVersion else {
            throw .invalidResumeData(reason: "version \(version) is newer than this Curlfire reads (\(currentVersion))")
        }
        let resume: DownloadResumeData
        do {
            resume = try JSONDecoder().decode(DownloadResumeData.self, from: data)
        } catch {
            throw .invalidResumeData(reason: "a field is missing or mistyped: \(error)")
        }
        try resume.check()
        return resume
    }

    /// Checks the fields' values (not the file).
    private func check() throws(CurlfireError) {
        guard bytesReceived > 0 else { throw .invalidResumeData(reason: "bytesReceived is \(bytesReceived)") }
        if let totalBytes, totalBytes < bytesReceived {
            throw .invalidResumeData(reason: "totalBytes \(totalBytes) is below bytesReceived \(bytesReceived)")
        }
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else { throw .invalidResumeData(reason: "the URL \(request.url.debugDescription) is not an http(s) URL") }
        // ASCII letters only: `Character.isLetter` also accepts `É` or `e` + U+0301, which are no HTTP method.
        guard !request.method.isEmpty,
              request.method.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) }) else {
            throw .invalidResumeData(reason: "the method \(request.method.debugDescription) is not valid")
        }
        guard validators.canValidateRange else {
            throw .invalidResumeData(reason: "it has neither a strong ETag nor a Last-Modified date")
        }
    }

    /// Checks that the partial file is a Curlfire download file in the temporary directory, a
    /// regular file (not a link) holding at least ``bytesReceived`` bytes.
    func checkFile(temporaryDirectory: URL = DownloadLocations.temporaryDirectory) throws(CurlfireError) {
        let file = URL(fileURLWithPath: temporaryFile)
        guard DownloadLocations.isDownloadFileName(file.lastPathComponent),
              file.deletingLastPathComponent().standardizedFileURL.path == temporaryDirectory.standardizedFileURL.path
        else { throw .invalidResumeData(reason: "\(temporaryFile) is not a Curlfire download file in \(temporaryDirectory.path)") }
        var info = stat()
        guard lstat(file.path, &info) == 0 else {
            throw .invalidResumeData(reason: "the partial file \(temporaryFile) is gone")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .invalidResumeData(reason: "the partial file \(temporaryFile) is not a regular file")
        }
        guard Int64(info.st_size) >= bytesReceived else {
            throw .invalidResumeData(reason: "the partial file holds \(info.st_size) bytes, fewer than \(bytesReceived)")
        }
    }

    /// The request that continues the download: `Range: bytes=N-` and `If-Range`. When the file
    /// already holds every byte, the last one is asked for again so the server answers 206, not 416.
    func makeRequest() throws(CurlfireError) -> URLRequest {
        guard let url = URL(string: request.url) else { throw .invalidResumeData(reason: "bad URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let from = totalBytes == bytesReceived ? bytesReceived - 1 : bytesReceived
        urlRequest.setValue("bytes=\(from)-", forHTTPHeaderField: "Range")
        urlRequest.setValue(validators.ifRange, forHTTPHeaderField: "If-Range")
        return urlRequest
    }
}

/// Where downloads put their files before moving them.
enum DownloadLocations {
    static let prefix = "curlfire-download-"
    static let suffix = ".tmp"

    /// The temporary directory (`$TMPDIR`, else `/tmp`).
    static var temporaryDirectory: URL { FileManager.default.temporaryDirectory }

    /// A new, unused file URL `<tmp>/curlfire-download-<UUID>.tmp` (the file is not created).
    static func newTemporaryFile() -> URL {
        temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString + suffix)
    }

    /// Whether `name` is `curlfire-download-<UUID>.tmp`.
    static func isDownloadFileName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        return UUID(uuidString: String(middle)) != nil
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
