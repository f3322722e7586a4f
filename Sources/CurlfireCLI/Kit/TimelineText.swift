import Curlfire
import Foundation

/// `--timeline`: the response's ``Timeline`` and ``TransferMetrics`` as aligned lines for stderr.
public enum TimelineText {
    /// The lines, each ending with a newline. Durations are in milliseconds.
    public static func format(timeline: Timeline, metrics: TransferMetrics?) -> String {
        var rows: [(String, String)] = [
            ("latency", ms(timeline.latency)),
            ("request duration", ms(timeline.requestDuration)),
            ("serialization duration", ms(timeline.serializationDuration)),
            ("total duration", ms(timeline.totalDuration)),
        ]
        if let metrics {
            rows += [
                ("dns lookup", ms(metrics.nameLookupDuration)),
                ("tcp connect", ms(metrics.connectDuration)),
                ("tls handshake", ms(metrics.tlsHandshakeDuration)),
                ("request start", ms(metrics.requestStartDuration)),
                ("first byte", ms(metrics.firstByteDuration)),
                ("transfer total", ms(metrics.totalDuration)),
                ("redirects", "\(metrics.redirectCount) in \(ms(metrics.redirectDuration))"),
                ("bytes sent", "\(metrics.bytesSent)"),
                ("bytes received", "\(metrics.bytesReceived)"),
                ("http version", metrics.httpVersion ?? "-"),
                ("remote address", address(metrics.remoteAddress, metrics.remotePort)),
                ("local address", address(metrics.localAddress, metrics.localPort)),
                ("connection", metrics.isReusedConnection ? "reused" : "new"),
                ("tls", metrics.tlsVersion.map { "\($0) \(metrics.tlsCipher ?? "")" + (metrics.tlsGroup.map { " \($0)" } ?? "") } ?? "-"),
            ]
        }
        let width = rows.map(\.0.count).max() ?? 0
        var out = "Timeline:\n"
        for (index, row) in rows.enumerated() {
            if index == 4 { out += "Metrics:\n" }
            out += "  " + row.0 + String(repeating: " ", count: width - row.0.count) + "  " + row.1 + "\n"
        }
        return out
    }

    private static func ms(_ seconds: TimeInterval) -> String { String(format: "%.3f ms", seconds * 1000) }

    private static func address(_ host: String?, _ port: Int?) -> String {
        guard let host else { return "-" }
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }
}
