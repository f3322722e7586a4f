// SHA-256 of data or of a file (OpenSSL's EVP interface), to check what a transfer produced.
internal import COpenSSL
import Foundation

/// An incremental SHA-256: feed it chunks as they arrive, then read the digest once.
public final class SHA256 {
    private let context: OpaquePointer?

    /// Starts a digest.
    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `data` to the digest.
    public func update(_ data: Data) {
        data.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { EVP_DigestUpdate(context, base, bytes.count) }
        }
    }

    /// The digest of everything added, as lowercase hex. Call it once, last.
    public func finalize() -> String {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return output.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }

    /// The digest of `data`.
    public static func hex(of data: Data) -> String {
        let hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The digest of the file at `url`, read in 1 MiB chunks; `nil` when it cannot be read.
    public static func hex(ofFile url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let hasher = SHA256()
        do {
            // `read(upToCount:)` gives nil or empty data at the end of the file.
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        } catch {
            return nil
        }
        return hasher.finalize()
    }
}
