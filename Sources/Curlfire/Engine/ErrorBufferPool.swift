internal import CCurl

/// libcurl's error-message buffers (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE + 1` bytes), reused from
/// one attempt to the next instead of allocated for each: every attempt needs one, and nearly every
/// attempt ends without libcurl writing to it.
///
/// An attempt takes a buffer when it is made and gives it back when it is freed, by which time no
/// easy handle points at it any more (a pooled handle is parked or reset first, EasyHandleReuse.swift).
/// Attempts are freed on whichever thread drops them last, so the spares sit behind a lock.
enum ErrorBufferPool {
    /// The size of one buffer.
    static let capacity = Int(CURL_ERROR_SIZE) + 1
    /// At most this many spares are kept (about 64 KiB); more are freed.
    static let maximumSpares = 256
    /// Buffers no attempt holds.
    private static let spares = LockedValue<[UnsafeMutablePointer<CChar>]>([])

    /// A buffer holding an empty message (its first byte is NUL).
    static func take() -> UnsafeMutablePointer<CChar> {
        if let buffer = spares.withLock({ $0.popLast() }) {
            buffer[0] = 0 // the message is read up to its NUL: an old one is gone
            return buffer
        }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
        return buffer
    }

    /// Gives `buffer` back; the caller must not use it again.
    static func give(_ buffer: UnsafeMutablePointer<CChar>) {
        let kept = spares.withLock { spares -> Bool in
            guard spares.count < maximumSpares else { return false }
            spares.append(buffer)
            return true
        }
        if !kept { buffer.deallocate() }
    }
}
