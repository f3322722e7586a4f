import Foundation
internal import CCurl

// libcurl's callbacks behind the live events (LiveEvents.swift), installed by
// `CurlAttempt.installLiveEvents` only for sessions with a monitor that receives live events.
// Each receives the `CurlAttempt` as an unretained pointer (alive while its handle is in the multi
// handle), except the socket close callback, which receives the session's `ConnectionTracker`
// retained once per open socket (a pooled connection may close after its attempt is gone).
// All run on the engine thread.

/// `CURLOPT_RESOLVER_START_FUNCTION`: a name lookup starts.
let curlfireResolverStartCallback: cfcurl_resolver_start_cb = { _, _, userdata in
    guard let userdata else { return 0 }
    Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue().live?.resolverStarted()
    return 0
}

/// `CURLOPT_OPENSOCKETFUNCTION`: makes the socket as libcurl would, and reports the connect start.
let curlfireOpenSocketCallback: cfcurl_opensocket_cb = { userdata, _, address in
    guard let address else { return CURL_SOCKET_BAD }
    let descriptor = socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    guard descriptor >= 0, let userdata,
          let live = Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue().live else { return descriptor }
    var text = [CChar](repeating: 0, count: 64)
    var port: Int32 = 0
    _ = cfcurl_sockaddr_text(address, &text, socklen_t(text.count), &port)
    _ = Unmanaged.passUnretained(live.tracker).retain() // released by curlfireCloseSocketCallback
    let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    live.socketOpened(descriptor, address: name, port: Int(port))
    return descriptor
}

/// `CURLOPT_CLOSESOCKETFUNCTION`: closes the socket and forgets its connection.
let curlfireCloseSocketCallback: cfcurl_closesocket_cb = { userdata, descriptor in
    let result = close(descriptor)
    if let userdata {
        let tracker = Unmanaged<ConnectionTracker>.fromOpaque(userdata)
        tracker.takeUnretainedValue().closed(descriptor)
        tracker.release() // the socket's retain (curlfireOpenSocketCallback)
    }
    return result
}

/// `CURLOPT_PREREQFUNCTION`: the attempt has its connection, new or reused; the request follows.
let curlfirePrereqCallback: cfcurl_prereq_cb = { userdata, primaryIP, localIP, primaryPort, localPort in
    guard let userdata else { return Int32(CURL_PREREQFUNC_OK) }
    let attempt = Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue()
    if let live = attempt.live, let easy = attempt.easy {
        live.connectionReady(easy: easy, primaryIP: primaryIP.map { String(cString: $0) } ?? "",
                             primaryPort: Int(primaryPort), localIP: localIP.map { String(cString: $0) } ?? "",
                             localPort: Int(localPort))
    }
    return Int32(CURL_PREREQFUNC_OK)
}

/// `CURLOPT_DEBUGFUNCTION` (with `CURLOPT_VERBOSE`): the TLS handshake's first record out and the
/// request head out, as they are written.
let curlfireDebugCallback: cfcurl_debug_cb = { _, type, _, _, userdata in
    guard let userdata else { return 0 }
    Unmanaged<CurlAttempt>.fromOpaque(userdata).takeUnretainedValue().live?.debug(type)
    return 0
}

extension CurlAttempt {
    /// Installs the live-event callbacks on `easy` (a session with a live-event monitor only).
    /// Returns the first option libcurl refused, if any.
    func installLiveEvents(on easy: UnsafeMutableRawPointer, tracker: ConnectionTracker) -> CURLoption? {
        live = LiveAttempt(tracker: tracker, transfer: transfer, url: request.url, isHTTPS: plan.isHTTPS)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let results: [(CURLcode, CURLoption)] = [
            (cfcurl_easy_setopt_resolver_start_cb(easy, curlfireResolverStartCallback), CURLOPT_RESOLVER_START_FUNCTION),
            (cfcurl_easy_setopt_ptr(easy, CURLOPT_RESOLVER_START_DATA, me), CURLOPT_RESOLVER_START_DATA),
            (cfcurl_easy_setopt_opensocket_cb(easy, curlfireOpenSocketCallback), CURLOPT_OPENSOCKETFUNCTION),
            (cfcurl_easy_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, me), CURLOPT_OPENSOCKETDATA),
            (cfcurl_easy_setopt_closesocket_cb(easy, curlfireCloseSocketCallback), CURLOPT_CLOSESOCKETFUNCTION),
            (cfcurl_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(tracker).toOpaque()),
             CURLOPT_CLOSESOCKETDATA),
            (cfcurl_easy_setopt_prereq_cb(easy, curlfirePrereqCallback), CURLOPT_PREREQFUNCTION),
            (cfcurl_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, me), CURLOPT_PREREQDATA),
            (cfcurl_easy_setopt_debug_cb(easy, curlfireDebugCallback), CURLOPT_DEBUGFUNCTION),
            (cfcurl_easy_setopt_ptr(easy, CURLOPT_DEBUGDATA, me), CURLOPT_DEBUGDATA),
            (cfcurl_easy_setopt_long(easy, CURLOPT_VERBOSE, 1), CURLOPT_VERBOSE),
        ]
        return results.first { $0.0 != CURLE_OK }?.1
    }
}
