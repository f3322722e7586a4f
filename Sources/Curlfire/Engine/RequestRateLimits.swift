/// A request's own bandwidth limits, beside the session's
/// (``SessionConfiguration/maximumDownloadBytesPerSecond``,
/// ``SessionConfiguration/maximumUploadBytesPerSecond``); a request's value replaces the session's.
/// Both `nil` by default.
struct RequestRateLimits: Sendable, Equatable {
    /// The most bytes per second received.
    var download: Int?
    /// The most bytes per second sent.
    var upload: Int?

    /// The limits in effect: the request's, else the session's.
    func resolved(sessionDownload: Int?, sessionUpload: Int?) -> RequestRateLimits {
        RequestRateLimits(download: download ?? sessionDownload, upload: upload ?? sessionUpload)
    }

    /// The first limit that is not a positive number of bytes per second, as a typed error.
    var validationError: CurlfireError? {
        if let download, download <= 0 {
            return .invalidBandwidthLimit(name: "maximumDownloadBytesPerSecond", bytesPerSecond: download)
        }
        if let upload, upload <= 0 {
            return .invalidBandwidthLimit(name: "maximumUploadBytesPerSecond", bytesPerSecond: upload)
        }
        return nil
    }
}
