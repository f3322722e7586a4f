import Foundation

extension HAR.Timings {
    /// The phases of one exchange, from libcurl's measurements.
    ///
    /// libcurl's times are cumulative from the transfer's start (name lookup ≤ connect ≤ TLS ≤
    /// pre-transfer ≤ first byte ≤ total), so each HAR phase is the difference of two of them:
    /// `dns` up to the name lookup, `connect` from there to the end of the TLS handshake (or of the
    /// TCP connect for plain HTTP) — including `ssl`, the handshake alone — `send` up to the moment
    /// the request goes out, `wait` up to the first response byte, `receive` to the end. A reused
    /// connection has no `dns`, `connect` or `ssl` (`-1`); `blocked` is `-1` (libcurl 7.88 does not
    /// report the time a transfer waited for a connection). The phases add up to the total.
    public init(metrics: TransferMetrics) {
        let reused = metrics.isReusedConnection
        let secure = !reused && metrics.tlsVersion != nil && metrics.tlsHandshakeDuration > 0
        // On a reused connection libcurl's first three times are near zero, not zero: they count
        // toward `send` so the phases still add up to the total.
        let dnsEnd = reused ? 0 : max(0, metrics.nameLookupDuration)
        let tcpEnd = reused ? 0 : max(metrics.connectDuration, dnsEnd)
        let connectionEnd = secure ? max(metrics.tlsHandshakeDuration, tcpEnd) : tcpEnd
        let sendEnd = max(metrics.requestStartDuration, connectionEnd)
        let firstByte = max(metrics.firstByteDuration, sendEnd)
        let end = max(metrics.totalDuration, firstByte)
        self.init(blocked: -1,
                  dns: reused ? -1 : Self.milliseconds(dnsEnd),
                  connect: reused ? -1 : Self.milliseconds(connectionEnd - dnsEnd),
                  send: Self.milliseconds(sendEnd - connectionEnd),
                  wait: Self.milliseconds(firstByte - sendEnd),
                  receive: Self.milliseconds(end - firstByte),
                  ssl: secure ? Self.milliseconds(connectionEnd - tcpEnd) : -1)
    }

    /// Seconds as milliseconds, to the microsecond; never negative, never NaN.
    static func milliseconds(_ seconds: TimeInterval) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return (seconds * 1_000_000).rounded() / 1000
    }
}
