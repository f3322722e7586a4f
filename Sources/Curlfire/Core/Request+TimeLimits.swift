import Foundation

extension DataTransferRequest {
    /// Gives this request at most `seconds` in all — connecting, sending, waiting, receiving,
    /// retry delays and redirects included — after which it fails with
    /// ``TransportErrorCode/timedOut``. The session's
    /// ``SessionConfiguration/timeoutIntervalForResource`` still applies: the earlier of the two
    /// wins. The idle timeout (the `URLRequest`'s `timeoutInterval`) is unchanged. A value that is
    /// not positive and finite fails the request with ``CurlfireError/invalidTimeout(name:value:)``.
    /// Gives a request with a new transfer.
    public func deadline(_ seconds: TimeInterval) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.timeLimits.deadline = seconds }
        return copy
    }

    /// Gives each attempt of this request at most `seconds` to connect — the TCP connection and the
    /// TLS handshake — instead of the idle timeout (the `URLRequest`'s `timeoutInterval`), which
    /// still applies once connected. A reused connection needs no connecting. A value that is not
    /// positive and finite fails the request with ``CurlfireError/invalidTimeout(name:value:)``.
    /// Gives a request with a new transfer.
    public func connectTimeout(_ seconds: TimeInterval) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.timeLimits.connectTimeout = seconds }
        return copy
    }
}

extension DownloadRequest {
    /// Gives this download at most `seconds` in all (see ``DataTransferRequest/deadline(_:)``):
    /// the earlier of it and the session's ``SessionConfiguration/timeoutIntervalForResource`` wins.
    /// Gives a request with a new transfer.
    public func deadline(_ seconds: TimeInterval) -> Self {
        var copy = self
        copy.core = core.reshaped { $0.timeLimits.deadline = seconds }
        return copy
    }

    /// Gives each attempt of this download at most `seconds` to connect (see
    /// ``DataTransferRequest/connectTimeout(_:)``). Gives a request with a new transfer.
    public func connectTimeout(_ seconds: TimeInterval) -> Self {
        var copy = self
        copy.core = core.reshaped { $0.timeLimits.connectTimeout = seconds }
        return copy
    }
}
