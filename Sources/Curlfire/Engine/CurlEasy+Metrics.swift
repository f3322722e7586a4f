import Foundation
internal import CCurl

/// Reads `CURLINFO_*` values from an easy handle after a transfer. Engine thread only.
enum CurlInfo {
    static func long(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value: Int = 0
        return cfcurl_easy_getinfo_long(UnsafeMutableRawPointer(easy), info, &value) == CURLE_OK ? value : 0
    }

    /// The URL libcurl ended on (`effective`, `CURLINFO_EFFECTIVE_URL`): `requestURL` itself when
    /// libcurl reports the same text (Curlfire follows redirects itself, so it nearly always does),
    /// parsed only when it differs.
    ///
    /// - Parameter requestURLText: `requestURL.absoluteString` when the caller already has it (the
    ///   plan's `CURLOPT_URL`): Foundation builds a new string on every `absoluteString`.
    static func effectiveURL(_ effective: UnsafePointer<CChar>?, requestURL: URL?, requestURLText: String? = nil) -> URL? {
        guard let effective else { return requestURL }
        let length = strlen(effective)
        if let requestURL {
            var text = requestURLText ?? requestURL.absoluteString
            let same = text.withUTF8 { $0.count == length && (length == 0 || memcmp($0.baseAddress!, effective, length) == 0) }
            if same { return requestURL }
        }
        let bytes = UnsafeRawBufferPointer(start: effective, count: length)
        return URL(string: String(decoding: bytes, as: UTF8.self)) ?? requestURL
    }

    /// ``TransferMetrics`` for a finished transfer, in a new box (``fillMetrics(_:from:requestURL:requestURLText:startDate:tls:)``).
    static func metrics(_ easy: UnsafeMutableRawPointer, requestURL: URL?, requestURLText: String? = nil, startDate: Date,
                        tls: NegotiatedTLS) -> TransferMetrics {
        var metrics = TransferMetrics()
        fillMetrics(&metrics, from: easy, requestURL: requestURL, requestURLText: requestURLText, startDate: startDate, tls: tls)
        return metrics
    }

    /// Sets every value of `metrics` from a finished transfer, in one write. `metrics` is held alone
    /// (the engine's spare, allocated off the engine thread, ResultSpares.swift, or the new one of
    /// ``metrics(_:requestURL:requestURLText:startDate:tls:)``), so the values go into its box.
    ///
    /// - Parameter requestURLText: `requestURL.absoluteString`, when the caller has it already.
    static func fillMetrics(_ metrics: inout TransferMetrics, from easy: UnsafeMutableRawPointer, requestURL: URL?,
                            requestURLText: String? = nil, startDate: Date, tls: NegotiatedTLS) {
        var info = cfcurl_transfer_info()
        cfcurl_read_transfer_info(easy, &info) // one call for every value (CCurl/shim.h)
        let version: String?
        switch info.http_version {
        case CURL_HTTP_VERSION_1_0: version = "HTTP/1.0"
        case CURL_HTTP_VERSION_1_1: version = "HTTP/1.1"
        case CURL_HTTP_VERSION_2_0: version = "HTTP/2"
        case CURL_HTTP_VERSION_3: version = "HTTP/3"
        default: version = nil
        }
        let seconds = { (microseconds: curl_off_t) in TimeInterval(microseconds) / 1_000_000 } // `*_TIME_T` values are µs
        metrics.setValues(TransferMetrics.Values(
            effectiveURL: effectiveURL(info.effective_url, requestURL: requestURL, requestURLText: requestURLText),
            startDate: startDate,
            nameLookupDuration: seconds(info.namelookup_us),
            connectDuration: seconds(info.connect_us),
            tlsHandshakeDuration: seconds(info.appconnect_us),
            requestStartDuration: seconds(info.pretransfer_us),
            firstByteDuration: seconds(info.starttransfer_us),
            totalDuration: seconds(info.total_us),
            redirectCount: info.redirect_count,
            redirectDuration: seconds(info.redirect_us),
            bytesSent: Int64(info.request_size) + Int64(info.size_upload),
            bytesReceived: Int64(info.header_size) + Int64(info.size_download),
            httpVersion: version,
            localAddress: info.local_ip.map { String(cString: $0) },
            localPort: info.local_port > 0 ? info.local_port : nil,
            remoteAddress: info.primary_ip.map { String(cString: $0) },
            remotePort: info.primary_port > 0 ? info.primary_port : nil,
            isReusedConnection: info.num_connects == 0 && version != nil,
            tlsVersion: tls.version,
            tlsCipher: tls.cipher,
            tlsGroup: tls.group))
    }
}
