// Test support for downloads: the loopback server of scripts/download-test-server.py (drops connections,
// ignores ranges, answers 416 or 503 to ranges, or sends slowly), plus SHA-256 of files via the
// openssl CLI (no CryptoKit on Linux).

import CurlfireTestSupport
import Foundation
import Synchronization

enum DownloadTestServer {
    private struct Running: @unchecked Sendable {
        let process: Process
        let stdin: Pipe
        let base: URL
    }

    private static let state = Mutex<Result<Running, TestServerError>?>(nil)

    /// `http://127.0.0.1:PORT`, starting the server on first use. It exits with the test process.
    static func baseURL() throws -> URL {
        try state.withLock { cached in
            if let cached { return try cached.get().base }
            let result: Result<Running, TestServerError>
            do { result = .success(try start()) } catch let error as TestServerError { result = .failure(error) } catch { result = .failure(TestServerError("\(error)")) }
            cached = result
            return try result.get().base
        }
    }

    /// `http://127.0.0.1:PORT/<mode>/<size>`.
    static func url(_ mode: String, size: Int) throws -> URL {
        try baseURL().appendingPathComponent("\(mode)/\(size)")
    }

    /// The bytes the server sends for `size`: byte i is (i * 7 + (i >> 8)) & 0xFF.
    static func expectedBody(size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 8)) })
    }

    /// The `Range` and `If-Range` headers of the requests for `path` so far, oldest first.
    static func rangeHeaders(for path: String) throws -> [(range: String?, ifRange: String?)] {
        let data = try Data(contentsOf: try baseURL().appendingPathComponent("log"))
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["path"] as? String == path else { return nil }
            return (object["range"] as? String, object["ifRange"] as? String)
        }
    }

    private static func start() throws(TestServerError) -> Running {
        let script = TestServers.repositoryRoot
            .appendingPathComponent("scripts/download-test-server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        do { try process.run() } catch { throw TestServerError("could not start \(script.path): \(error)") }
        var line = Data()
        while let byte = try? stdout.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            throw TestServerError("download-test-server.py printed no port")
        }
        return Running(process: process, stdin: stdin, base: URL(string: "http://127.0.0.1:\(port)")!)
    }
}

/// SHA-256 of a file, lowercase hex, from `openssl dgst -sha256 -r`.
func sha256(of file: URL) throws -> String {
    let result = try Subprocess.run(["openssl", "dgst", "-sha256", "-r", file.path])
    guard result.status == 0, let hex = result.text.split(separator: " ").first
    else { throw TestServerError("openssl dgst failed for \(file.path)") }
    return String(hex)
}

/// The size of a file in bytes, or -1 when it does not exist.
func fileSize(_ url: URL?) -> Int {
    guard let url, let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber
    else { return -1 }
    return size.intValue
}

/// `true` the first time `claim()` is called, from any thread; `false` afterwards.
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool { lock.withLock { defer { claimed = true }; return !claimed } }
}
