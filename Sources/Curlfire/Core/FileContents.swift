import Foundation

/// Reads a whole file into memory.
///
/// swift-foundation 6.3's `readBytesFromFile` (under `Data(contentsOf:)` and
/// `FileManager.contents(atPath:)`) leaks the 4 KiB buffer it allocates for an empty file — every
/// call, found by LeakSanitizer (docs/Reliability.md, "Leaks"). An empty regular file is therefore
/// answered without reading it; any other file is read by Foundation.
enum FileContents {
    /// The file's bytes, or `nil` when it cannot be read.
    static func read(atPath path: String) -> Data? {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 { return Data() }
        return FileManager.default.contents(atPath: path)
    }
}
