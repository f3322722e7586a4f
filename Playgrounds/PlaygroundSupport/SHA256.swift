// SHA-256 of data or of a file (OpenSSL's EVP interface), to check what a transfer produced.
internal import COpenSSL
import Foundation

/// SHA-256 digests as lowercase hex.
public enum SHA256 {
    /// The digest of `data`.
    public static func hex(of data: Data) -> String {
        digest { update in data.withUnsafeBytes { update($0) } }
    }

    /// The digest of the file at `url`, read in 1 MiB chunks; `nil` when it cannot be read.
    public static func hex(ofFile url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var failed = false
        let result = digest { update in
            do {
                // `read(upToCount:)` gives nil or empty data at the end of the file.
                while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    chunk.withUnsafeBytes { update($0) }
                }
            } catch {
                failed = true
            }
        }
        return failed ? nil : result
    }

    private static func digest(_ feed: ((UnsafeRawBufferPointer) -> Void) -> Void) -> String {
        guard let context = EVP_MD_CTX_new() else { return "" }
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        feed { bytes in
            if let base = bytes.baseAddress { EVP_DigestUpdate(context, base, bytes.count) }
        }
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return output.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
