import Foundation
internal import CCurl

/// Reads `CURLINFO_*` values from an easy handle after a transfer. Engine thread only.
enum CurlInfo {
    static func long(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value: Int = 0
        return cfcurl_easy_getinfo_long(UnsafeMutableRawPointer(easy), info, &value) == CURLE_OK ? value : 0
    }

    static func offT(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return cfcurl_easy_getinfo_off_t(UnsafeMutableRawPointer(easy), info, &value) == CURLE_OK ? Int64(value) : 0
    }

    static func string(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard cfcurl_easy_getinfo_string(UnsafeMutableRawPointer(easy), info, &value) == CURLE_OK, let value
        else { return nil }
        return String(cString: value)
    }

    /// Seconds from a `*_TIME_T` value (microseconds).
    static func seconds(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> TimeInterval {
        TimeInterval(offT(easy, info)) / 1_000_000
    }

    /// The URL libcurl ended on: `requestURL` itself when libcurl reports the same text (Curlfire
    /// follows redirects itself, so it nearly always does), parsed only when it differs.
    ///
    /// - Parameter requestURLText: `requestURL.absoluteString` when the caller already has it (the
    ///   plan's `CURLOPT_URL`): Foundation builds a new string on every `absoluteString`.
    static func effectiveURL(_ easy: UnsafeMutableRawPointer, requestURL: URL?, requestURLText: String? = nil) -> URL? {
        var value: UnsafeMutablePointer<CChar>?
        guard cfcurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &value) == CURLE_OK, let value else {
            return requestURL
        }
        let effective = UnsafeRawBufferPointer(start: value, count: strlen(value))
        if let requestURL, (requestURLText ?? requestURL.absoluteString).utf8.elementsEqual(effective) { return requestURL }
        return URL(string: String(decoding: effective, as: UTF8.self)) ?? requestURL
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
        let version: String?
        switch long(easy, CURLINFO_HTTP_VERSION) {
        case CURL_HTTP_VERSION_1_0: version = "HTTP/1.0"
        case CURL_HTTP_VERSION_1_1: version = "HTTP/1.1"
        case CURL_HTTP_VERSION_2_0: version = "HTTP/2"
        case CURL_HTTP_VERSION_3: version = "HTTP/3"
        default: version = nil
        }
        let localPort = long(easy, CURLINFO_LOCAL_PORT)
        let remotePort = long(easy, CURLINFO_PRIMARY_PORT)
        metrics.setValues(TransferMetrics.Values(
            effectiveURL: effectiveURL(easy, requestURL: requestURL, requestURLText: requestURLText),
            startDate: startDate,
            nameLookupDuration: seconds(easy, CURLINFO_NAMELOOKUP_TIME_T),
            connectDuration: seconds(easy, CURLINFO_CONNECT_TIME_T),
            tlsHandshakeDuration: seconds(easy, CURLINFO_APPCONNECT_TIME_T),
            requestStartDuration: seconds(easy, CURLINFO_PRETRANSFER_TIME_T),
            firstByteDuration: seconds(easy, CURLINFO_STARTTRANSFER_TIME_T),
            totalDuration: seconds(easy, CURLINFO_TOTAL_TIME_T),
            redirectCount: long(easy, CURLINFO_REDIRECT_COUNT),
            redirectDuration: seconds(easy, CURLINFO_REDIRECT_TIME_T),
            bytesSent: Int64(long(easy, CURLINFO_REQUEST_SIZE)) + offT(easy, CURLINFO_SIZE_UPLOAD_T),
            bytesReceived: Int64(long(easy, CURLINFO_HEADER_SIZE)) + offT(easy, CURLINFO_SIZE_DOWNLOAD_T),
            httpVersion: version,
            localAddress: string(easy, CURLINFO_LOCAL_IP),
            localPort: localPort > 0 ? localPort : nil,
            remoteAddress: string(easy, CURLINFO_PRIMARY_IP),
            remotePort: remotePort > 0 ? remotePort : nil,
            isReusedConnection: long(easy, CURLINFO_NUM_CONNECTS) == 0 && version != nil,
            tlsVersion: tls.version,
            tlsCipher: tls.cipher,
            tlsGroup: tls.group))
    }
}
