internal import CCurl

/// The receive buffer an attempt asks libcurl for (`CURLOPT_BUFFERSIZE`).
///
/// libcurl 7.88 mallocs the buffer when a transfer starts and frees it when the transfer ends, so
/// its size is paid on every request. At the session's `receiveBufferSize` (512 KiB by default) that
/// cost is a block above glibc's consolidation threshold, whose malloc and free consolidate the
/// engine thread's heap and grow and trim it (`madvise`, page faults, TLB shootdowns): about 4 µs of
/// CPU per small request at 8 in flight (docs/Performance.md, "2026-11-27, fifth session"). A large
/// buffer pays off only where many large reads follow one another and each is written out whole: a
/// download to a file (1.3–1.5× the rate of libcurl's 16 KiB on loopback). So the session's size is
/// used for responses written to a file, and every other response (in memory, streamed to a closure
/// or a `StreamRequest`) reads through at most libcurl's own default.
enum ReceiveBuffer {
    /// libcurl's default receive buffer (16 KiB): what a new or reset handle has.
    static let libcurlDefault = Int(CURL_MAX_WRITE_SIZE)

    /// The size for an attempt: `configured` (the session's `receiveBufferSize`)
    /// for a body written to a file, at most `libcurlDefault` for any other; `libcurlDefault`
    /// when `configured` is not positive.
    static func size(configured: Int, writesFile: Bool) -> Int {
        guard configured > 0 else { return libcurlDefault }
        return writesFile ? configured : min(configured, libcurlDefault)
    }
}
