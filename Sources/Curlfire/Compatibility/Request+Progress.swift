import Foundation

// Alamofire 4's `progress` / `uploadProgress` properties (issue 30 point 7).

extension DataTransferRequest {
    /// How much of the response body has arrived, as Alamofire 4's `DataRequest.progress`:
    /// `completedUnitCount` bytes of `totalUnitCount` (`-1` until `Content-Length` is known).
    ///
    /// Each read gives a new `Progress` with the counts of that moment; read it again for later
    /// ones (Foundation's `Progress` on Linux can be neither shared with the engine thread nor
    /// reset by a retry). Read before the request starts, it makes the transfer count as bytes
    /// arrive; read first while it runs, it shows the counts from the next attempt on, and the
    /// complete counts once the request has succeeded. For reports as they happen, use
    /// ``downloadProgress(queue:closure:)``.
    public var progress: Progress { _dataRequest.core.transfer.downloadProgressSnapshot }
}

extension UploadRequest {
    /// How much of the request body has been sent, as Alamofire 4's `UploadRequest.uploadProgress`;
    /// a new snapshot on each read, as ``DataTransferRequest/progress``.
    public var uploadProgress: Progress { _dataRequest.core.transfer.uploadProgressSnapshot }
}

extension DownloadRequest {
    /// How much of the file has arrived, as Alamofire 4's `DownloadRequest.progress`; a new
    /// snapshot on each read, as ``DataTransferRequest/progress``.
    public var progress: Progress { core.transfer.downloadProgressSnapshot }
}
