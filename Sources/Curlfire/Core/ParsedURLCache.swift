import Foundation

/// The last string ``String/asURL()`` parsed on each thread, with its `URL`: a client usually starts
/// request after request with the same URL string (a polled endpoint, a page of results whose
/// parameters are encoded later), and parsing one costs about half a microsecond on the thread that
/// starts the request (Foundation's RFC 3986 parser and a new `URL` storage object;
/// docs/Performance.md, "eighth session").
///
/// One entry per thread, in a thread-specific slot (`pthread_getspecific`): a hit is a comparison of
/// the two strings' UTF-8 bytes and a retain (0.07 µs in a hot loop with the lock this used to take; a
/// parse 0.30 µs). One entry for the whole process, behind a lock, made the threads of Swift's
/// executor wait for each other three times per request (docs/Performance.md, "thirteenth session");
/// a thread usually starts request after request itself, so its own last entry is what it meets.
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

    /// One thread's entry, reached only by that thread (through ``key``), so it needs no lock.
    private final class Slot {
        var entry: Entry?
    }

    /// The thread-specific slot's key; a thread's slot is released when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Slot>.fromOpaque(pointer).release() }
        }
        precondition(created == 0, "pthread_key_create failed: \(created)")
        return key
    }()

    /// The calling thread's slot, made at its first use.
    private static var slot: Slot {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue() }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }

    /// The URL `string` parses to, when it is the string this thread parsed last.
    static func url(for string: String) -> URL? {
        guard let entry = slot.entry, sameBytes(entry.string, string) else { return nil }
        return entry.url
    }

    /// Whether `url` is the URL this thread kept and has passed the target checks. Equal URLs (the
    /// same string relative to the same base) have the same scheme and host.
    static func passedTargetChecks(_ url: URL) -> Bool {
        guard let entry = slot.entry, entry.passedTargetChecks else { return false }
        return entry.url == url
    }

    /// Notes that `url` passed the target checks, when it is the URL this thread kept.
    static func notePassedTargetChecks(_ url: URL) {
        let slot = slot
        if slot.entry?.url == url { slot.entry?.passedTargetChecks = true }
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

    /// Keeps `url`, parsed from `string`, as this thread's entry.
    static func keep(_ url: URL, for string: String) {
        slot.entry = Entry(string: string, url: url)
    }
}
