#if CLI
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The validator (`ETag` or `Last-Modified`) of the entity a downloaded file holds, kept in the
/// file's extended attribute `user.curlfire.validator` so that `--continue` can send `If-Range`:
/// when the entity changed on the server, the server then sends it whole (200) and the file
/// restarts instead of being completed with bytes of another version.
///
/// Best effort: on a file system without user extended attributes nothing is stored, and
/// `--continue` sends `Range` alone (as `curl -C -` and httpie do).
enum FileValidator {
    private static let name = "user.curlfire.validator"

    private typealias SetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias GetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    private typealias RemoveXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32

    /// glibc's `setxattr` family, looked up at run time: Swift's Glibc module does not import `sys/xattr.h`.
    private static func symbol<T>(_ symbol: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, symbol) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    /// The validator to send as `If-Range` for a response: a strong `ETag`, else `Last-Modified`.
    static func validator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.hasPrefix("W/"), !etag.isEmpty { return etag }
        if let lastModified, !lastModified.isEmpty { return lastModified }
        return nil
    }

    /// Stores `validator` on `path`, or removes the attribute when `nil`.
    static func store(_ validator: String?, at path: String) {
        guard let validator else {
            _ = symbol("removexattr", as: RemoveXattr.self)?(path, name)
            return
        }
        let bytes = Array(validator.utf8)
        _ = symbol("setxattr", as: SetXattr.self)?(path, name, bytes, bytes.count, 0)
    }

    /// The validator stored on `path`, if any.
    static func read(at path: String) -> String? {
        guard let getxattr = symbol("getxattr", as: GetXattr.self) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = getxattr(path, name, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
#endif
