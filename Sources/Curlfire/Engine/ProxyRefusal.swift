internal import CCurl

/// Whether a transfer through a proxy ended in the proxy's refusal to authenticate it.
enum ProxyRefusal {
    /// Whether the proxy refused: libcurl's `code`, the response's `status`, the `CONNECT`'s
    /// status (`CURLINFO_HTTP_CONNECTCODE`), the proxy's own code (`CURLINFO_PROXY_ERROR`), and
    /// whether the request went through a tunnel (HTTPS origin, whose responses come from the origin).
    ///
    /// - A `CONNECT` answered 407: libcurl fails the transfer (`CURLE_RECV_ERROR` in 7.88).
    /// - A plain-HTTP request answered 407: the proxy's answer reaches the caller as a response,
    ///   which through an HTTP proxy can only be the proxy's (an origin sends 401).
    /// - SOCKS5: `CURLE_PROXY` with the user rejected, or no acceptable method.
    static func refused(code: CURLcode, status: Int, connectStatus: Int, proxyError: Int, tunnelled: Bool) -> Bool {
        if connectStatus == 407 { return true }
        if code == CURLE_OK { return status == 407 && !tunnelled }
        if code == CURLE_PROXY {
            return proxyError == Int(CURLPX_USER_REJECTED.rawValue) || proxyError == Int(CURLPX_NO_AUTH.rawValue)
        }
        return false
    }
}
