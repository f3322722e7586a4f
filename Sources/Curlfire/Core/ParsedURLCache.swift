import Foundation

/// The last string ``String/asURL()`` parsed, with its `URL`: a client usually starts request after
/// request with the same URL string (a polled endpoint, a page of results whose parameters are encoded
/// later), and parsing one costs about half a microsecond on the thread that starts the request
/// (Foundation's RFC 3986 parser and a new `URL` storage object; docs/Performance.md, "eighth session").
///
/// One entry for the whole process, behind a pthread lock (``LockedValue``): a hit is a lock, a
/// comparison of the two strings' UTF-8 bytes and a retain (0.07 µs in a hot loop; a parse 0.30 µs).
/// Bytes, not `==`: Swift's `==` holds for canonically equivalent strings ("é" as one scalar or as
/// "e" and an accent) that parse to different URLs. A string that is not an absolute URL with a host
/// is never kept, so a hit returns what a parse would: `URL` is an immutable value, and one string
/// always parses to equal `URL`s.
///
/// The entry also remembers that its URL passed the checks every request's target must pass
/// (``RequestChecks``: an HTTP, HTTPS or Unix-socket scheme and a host). Foundation reads the scheme
/// and the host out of the URL anew on every call, about 1.5 µs per request on a thread whose caches
/// the kernel and libcurl have just used (docs/Performance.md, "ninth session").
enum ParsedURLCache {
    private struct Entry {
        let string: String
        let url: URL
        var passedTargetChecks = false
    }

    private static let last = LockedValue<Entry?>(nil)

    /// The URL `string` parses to, when it is the string parsed last.
    static func url(for string: String) -> URL? {
        last.withLock { entry in
            guard let entry, sameBytes(entry.string, string) else { return nil }
            return entry.url
        }
    }

    /// Whether `url` is the URL kept and has passed the target checks. Equal URLs (the same string
    /// relative to the same base) have the same scheme and host.
    static func passedTargetChecks(_ url: URL) -> Bool {
        last.withLock { entry in
            guard let entry, entry.passedTargetChecks else { return false }
            return entry.url == url
        }
    }

    /// Notes that `url` passed the target checks, when it is the URL kept.
    static func notePassedTargetChecks(_ url: URL) {
        last.withLock { entry in
            if entry?.url == url { entry?.passedTargetChecks = true }
        }
    }

    /// Whether `a` and `b` have the same UTF-8 bytes: compared in place when both are stored
    /// contiguously (native strings; copying them for `withUTF8` made a hit half again as slow),
    /// else byte by byte.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let count = a.utf8.count
        guard count == b.utf8.count else { return false }
        guard count > 0 else { return true }
        let inPlace = a.utf8.withContiguousStorageIfAvailable { first in
            b.utf8.withContiguousStorageIfAvailable { second in
                memcmp(first.baseAddress!, second.baseAddress!, count) == 0
            }
        }
        if let inPlace, let same = inPlace { return same }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Keeps `url`, parsed from `string`, as the last entry.
    static func keep(_ url: URL, for string: String) {
        last.withLock { $0 = Entry(string: string, url: url) }
    }
}
