internal import CCurl

/// An easy handle of the engine's pool with what rides on it from one attempt to the next:
/// libcurl's error-message buffer (`CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE + 1` bytes) and the record
/// of the options its last plan wrote (EasyHandleReuse.swift).
///
/// Every attempt needs a buffer and nearly every attempt ends without libcurl writing to it, so the
/// buffer is made once with its handle and freed with it. Engine thread only: the engine holds the
/// handle while it is pooled and its attempt while it runs, so nothing needs a lock.
struct PooledEasyHandle {
    /// The size of the error buffer.
    static let errorBufferCapacity = Int(CURL_ERROR_SIZE) + 1

    let easy: UnsafeMutableRawPointer
    /// libcurl writes a detailed message for a failure here; read up to its first NUL.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The options the last plan wrote, when the handle was pooled without a reset (`nil`: new or reset).
    var record: EasyHandleRecord?
    /// The `CURLOPT_BUFFERSIZE` the handle has: libcurl's default after a reset (ReceiveBuffer.swift).
    var receiveBufferSize = ReceiveBuffer.libcurlDefault

    /// A new handle with its own, empty buffer; `nil` when libcurl cannot make one.
    static func make() -> PooledEasyHandle? {
        guard let easy = curl_easy_init() else { return nil }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorBufferCapacity)
        buffer.initialize(repeating: 0, count: errorBufferCapacity)
        return PooledEasyHandle(easy: easy, errorBuffer: buffer, record: nil)
    }

    /// Empties the message for the next attempt: an earlier attempt's message must never show in
    /// this one's error.
    func clearErrorMessage() { errorBuffer[0] = 0 }

    /// Frees the handle and its buffer; neither may be used again.
    func cleanup() {
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }
}
