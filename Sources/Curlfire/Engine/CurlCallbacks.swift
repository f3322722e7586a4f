import Foundation
internal import CCurl

// libcurl's callbacks, as C function pointers. Each receives the `CurlAttempt` as an unretained
// pointer (set with the matching *DATA option); the engine's active table keeps the attempt alive
// for as long as its easy handle is in the multi handle. All run on the engine thread. The hot
// ones (body, header) borrow it (`_withUnsafeGuaranteedRef`): no retain and release per call, for
// a reference the active table already holds.

/// `CURLOPT_WRITEFUNCTION`: a chunk of the response body.
let curlfireWriteCallback: cfcurl_data_cb = { buffer, size, count, userdata in
    guard let userdata else { return 0 }
    let length = size * count
    let outcome = Unmanaged<CurlAttempt>.fromOpaque(userdata)._withUnsafeGuaranteedRef {
        $0.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length))
    }
    switch outcome {
    case .accepted: return length
    case .paused: return cfcurl_writefunc_pause() // libcurl keeps the chunk and delivers it again on resume
    case .failed: return 0
    }
}

/// `CURLOPT_HEADERFUNCTION`: one header line (status line included), CRLF-terminated.
let curlfireHeaderCallback: cfcurl_data_cb = { buffer, size, count, userdata in
    guard let userdata, let buffer else { return 0 }
    let length = size * count
    let line = UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
    return Unmanaged<CurlAttempt>.fromOpaque(userdata)._withUnsafeGuaranteedRef { $0.receiveHeader(line) } ? length : 0
}

/// `CURLOPT_READFUNCTION`: fill libcurl's buffer with request body bytes.
let curlfireReadCallback: cfcurl_data_cb = { buffer, size, count, userdata in
    guard let userdata, let buffer else { return cfcurl_readfunc_abort() }
    let attempt = Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue()
    guard let read = attempt.readBody(into: UnsafeMutableRawPointer(buffer), capacity: size * count) else {
        return cfcurl_readfunc_pause()
    }
    return read >= 0 ? read : cfcurl_readfunc_abort()
}

/// `CURLOPT_SEEKFUNCTION`: rewind the body (redirects, authentication retries).
let curlfireSeekCallback: cfcurl_seek_cb = { userdata, offset, origin in
    guard let userdata, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    let attempt = Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue()
    return attempt.seekBody(to: Int64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
}

/// `CURLOPT_XFERINFOFUNCTION`: progress; returning non-zero would abort, so it always returns 0.
let curlfireProgressCallback: cfcurl_xferinfo_cb = { userdata, downloadTotal, downloaded, uploadTotal, uploaded in
    guard let userdata else { return 0 }
    let attempt = Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue()
    attempt.progress(downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded),
                     uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded))
    return 0
}

/// `CURLOPT_SSL_CTX_FUNCTION`: a new TLS connection's `SSL_CTX`; installs the host's trust evaluation.
/// The userdata is the host's `TLSContextConfiguring`, kept alive by the engine for the session's life.
/// The easy handle's pointer bits key the handshake's verdict (`takeFailure(forHandshake:)`).
let curlfireSSLContextCallback: cfcurl_sslctx_cb = { easy, sslContext, userdata in
    guard let easy, let userdata, let sslContext else { return CURLE_SSL_CERTPROBLEM }
    let configurator = Unmanaged<AnyObject>.fromOpaque(userdata).takeUnretainedValue()
    guard let trust = configurator as? any TLSContextConfiguring else { return CURLE_SSL_CERTPROBLEM }
    return trust.install(onSSLContext: sslContext, handshake: UInt(bitPattern: easy)) ? CURLE_OK : CURLE_SSL_CERTPROBLEM
}
