extension DataTransferRequest {
    /// Receives this request's response body at most `bytesPerSecond`, paced from its first byte,
    /// instead of the session's ``SessionConfiguration/maximumDownloadBytesPerSecond``. A value that
    /// is not positive fails the request with ``CurlfireError/invalidBandwidthLimit(name:bytesPerSecond:)``.
    /// Gives a request with a new transfer.
    public func maximumDownloadBytesPerSecond(_ bytesPerSecond: Int) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.rateLimits.download = bytesPerSecond }
        return copy
    }

    /// Sends this request's body at most `bytesPerSecond`, paced from its first byte, instead of the
    /// session's ``SessionConfiguration/maximumUploadBytesPerSecond``. A value that is not positive
    /// fails the request with ``CurlfireError/invalidBandwidthLimit(name:bytesPerSecond:)``.
    /// Gives a request with a new transfer.
    public func maximumUploadBytesPerSecond(_ bytesPerSecond: Int) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.rateLimits.upload = bytesPerSecond }
        return copy
    }
}

extension DownloadRequest {
    /// Writes this download at most `bytesPerSecond`, paced from its first byte, instead of the
    /// session's ``SessionConfiguration/maximumDownloadBytesPerSecond``. Gives a request with a new transfer.
    public func maximumDownloadBytesPerSecond(_ bytesPerSecond: Int) -> Self {
        var copy = self
        copy.core = core.reshaped { $0.rateLimits.download = bytesPerSecond }
        return copy
    }
}
