// scripts/download-test-server.py for the CLI tests: drops connections half-way, honours Range with
// If-Range, sends slowly, and logs the Range / If-Range headers it received. Started once per test
// process the way the integration tests' DownloadTestServer does; it exits when its stdin closes,
// that is when this process exits.
import Foundation
import Synchronization

enum CLIDownloadServer {
    private struct Running: @unchecked Sendable {
        let process: Process
        let stdin: Pipe
        let base: String
    }

    private static let state = Mutex<Result<Running, CLIHarnessError>?>(nil)

    /// `http://127.0.0.1:PORT/<mode>/<size>`.
    static func url(_ mode: String, size: Int) throws -> String {
        try state.withLock { cached in
            if cached == nil { cached = Result { () throws(CLIHarnessError) in try start() } }
            return try cached!.get().base + "/\(mode)/\(size)"
        }
    }

    /// The bytes the server sends for `size`.
    static func expectedBody(size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 8)) })
    }

    /// `(Range, If-Range)` of every request for `path`, oldest first.
    static func rangeHeaders(for path: String) throws -> [(range: String?, ifRange: String?)] {
        let base = try url("log", size: 0).replacingOccurrences(of: "/log/0", with: "")
        let data = try Data(contentsOf: URL(string: base + "/log")!)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["path"] as? String == path else { return nil }
            return (object["range"] as? String, object["ifRange"] as? String)
        }
    }

    private static func start() throws(CLIHarnessError) -> Running {
        let script = CLIHarness.repositoryRoot + "/scripts/download-test-server.py"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        do { try process.run() } catch { throw CLIHarnessError("could not start \(script): \(error)") }
        var line = Data()
        while let byte = try? stdout.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            throw CLIHarnessError("download-test-server.py printed no port")
        }
        return Running(process: process, stdin: stdin, base: "http://127.0.0.1:\(port)")
    }
}
