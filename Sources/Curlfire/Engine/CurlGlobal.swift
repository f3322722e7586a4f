internal import CCurl

/// libcurl's process-wide initialisation, done exactly once before the first handle is created.
///
/// `curl_global_init` is thread-safe in Debian's build (`threadsafe` feature), and a Swift `static let`
/// is initialised once under a lock, so racing first sessions are safe.
enum CurlGlobal {
    /// The result of `curl_global_init(CURL_GLOBAL_ALL)`; `CURLE_OK` (0) on success.
    /// OpenSSL is initialised first, without its `atexit` clean-up (see `OpenSSL.initialized`).
    static let initialized: Int = {
        _ = OpenSSL.initialized
        return Int(curl_global_init(Int(CURL_GLOBAL_ALL)).rawValue)
    }()

    /// The libcurl version string, for example `"7.88.1"`.
    static let version: String = {
        guard let info = curl_version_info(CURLVERSION_TENTH), let version = info.pointee.version else { return "?" }
        return String(cString: version)
    }()
}
