import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The disk tier: one file per URL in the cache directory, named by the SHA-256 of its key, kept
/// across restarts.
///
/// A store writes a temporary file and renames it over the entry (readers see the old or the new
/// file, never half of one). A read checks the file (``DiskEntryCodec``): a truncated or altered
/// file is deleted and reads as a miss. Once over capacity, the least recently used files are
/// removed. Not thread-safe: ``ResponseCache`` holds its lock around every call, so concurrent
/// requests for one URL never interleave their writes.
struct DiskTier: Sendable {
    let directory: URL
    let capacity: Int
    private(set) var usage = 0
    private var files: [String: (size: Int, tick: UInt64)] = [:]
    private var clock: UInt64 = 0
    private static let suffix = ".cfcache"

    /// Opens (creating if needed) the directory and indexes the entries already there, oldest
    /// first; leftover temporary files are removed. `nil` when the directory cannot be used.
    init?(directory: URL, capacity: Int) {
        self.directory = directory
        self.capacity = max(0, capacity)
        let manager = FileManager.default
        guard (try? manager.createDirectory(at: directory, withIntermediateDirectories: true)) != nil,
              let names = try? manager.contentsOfDirectory(atPath: directory.path) else { return nil }
        var found: [(name: String, size: Int, modified: Date)] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            if name.hasSuffix(".tmp") {
                try? manager.removeItem(atPath: path)
                continue
            }
            guard name.hasSuffix(Self.suffix), let attributes = try? manager.attributesOfItem(atPath: path) else { continue }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            found.append((name, size, attributes[.modificationDate] as? Date ?? .distantPast))
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            clock += 1
            files[file.name] = (file.size, clock)
            usage += file.size
        }
        evict()
    }

    /// The file name of a key.
    static func fileName(forKey key: String) -> String {
        OpenSSL.sha256(Data(key.utf8)).prefix(20).map { String(format: "%02x", $0) }.joined() + suffix
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The entry for `key`, or `nil` (a damaged file, or one holding another key, is deleted).
    mutating func entry(forKey key: String) -> CachedEntry? {
        let name = Self.fileName(forKey: key)
        guard files[name] != nil else { return nil }
        guard let data = FileContents.read(atPath: path(name)),
              let entry = DiskEntryCodec.decode(data), entry.key == key else {
            remove(fileNamed: name)
            return nil
        }
        clock += 1
        files[name]?.tick = clock
        return entry
    }

    /// Writes the entry (temporary file, then rename); an entry larger than the capacity, or one
    /// that cannot be written, is not kept (and the key's old file is removed).
    mutating func store(_ entry: CachedEntry) {
        let name = Self.fileName(forKey: entry.key)
        guard let data = DiskEntryCodec.encode(entry), data.count <= capacity else { return remove(fileNamed: name) }
        let temporary = path("\(name).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary, contents: data),
              rename(temporary, path(name)) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            return remove(fileNamed: name)
        }
        usage -= files[name]?.size ?? 0
        clock += 1
        files[name] = (data.count, clock)
        usage += data.count
        evict()
    }

    /// Removes the key's file.
    mutating func remove(_ key: String) { remove(fileNamed: Self.fileName(forKey: key)) }

    /// Removes every entry file.
    mutating func removeAll() {
        for name in files.keys { try? FileManager.default.removeItem(atPath: path(name)) }
        files.removeAll()
        usage = 0
    }

    private mutating func remove(fileNamed name: String) {
        try? FileManager.default.removeItem(atPath: path(name))
        if let old = files.removeValue(forKey: name) { usage -= old.size }
    }

    /// Removes the least recently used files until the usage fits the capacity.
    private mutating func evict() {
        guard usage > capacity else { return }
        for name in files.sorted(by: { $0.value.tick < $1.value.tick }).map(\.key) where usage > capacity {
            remove(fileNamed: name)
        }
    }
}
