extension DataTransferRequest {
    /// Uses `handler` to decide what the session's ``ResponseCache`` stores for this request,
    /// instead of the session's ``SessionManager/cachedResponseHandler``. Without a cache on the
    /// session it has no effect. Gives a request with a new transfer.
    ///
    /// - Parameter handler: Decides whether and in what form the response is stored
    ///   (``ResponseCacher/cache``, ``ResponseCacher/doNotCache``, ``ResponseCacher/Behavior/modify(_:)``).
    /// - Returns: The request with the handler.
    public func cacheResponse(using handler: any CachedResponseHandler) -> Self {
        var copy = self
        copy._dataRequest.core = _dataRequest.core.reshaped { $0.cache?.handler = handler }
        return copy
    }
}
