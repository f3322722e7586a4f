// Test support for downloads: SHA-256 of files via the openssl CLI (no CryptoKit on Linux), file sizes,
// and a claim-once flag for progress handlers. (The download tests' server is RangeMockServer.swift.)

import CurlfireTestSupport
import Foundation

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
