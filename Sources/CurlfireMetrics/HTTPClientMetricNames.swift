#if Metrics
/// The labels and dimension names ``MetricsEventMonitor`` records under, after OpenTelemetry's HTTP
/// client semantic conventions where they have one.
public enum HTTPClientMetricNames {
    /// How long each request took, from its start to its end, retries and redirects included: a
    /// `Timer` (nanoseconds, displayed in seconds). Dimensions: method, status, host.
    public static let requestDuration = "http.client.request.duration"
    /// Requests started and not finished: a `Meter`. Dimensions: method, host.
    public static let activeRequests = "http.client.active_requests"
    /// Bytes sent by each attempt (request line, headers and body, as libcurl counts them): a
    /// `Counter`. Dimensions: method, status, host.
    public static let bytesSent = "http.client.bytes_sent"
    /// Bytes received by each attempt (headers and body, as libcurl counts them): a `Counter`.
    /// Dimensions: method, status, host.
    public static let bytesReceived = "http.client.bytes_received"

    /// Dimension: the request method, `GET`.
    public static let method = "http.request.method"
    /// Dimension: the final status code, `200`; `none` when no response arrived.
    public static let status = "http.response.status_code"
    /// Dimension: the host the request went to, `api.example.com`; `none` without a URL.
    public static let host = "server.address"
}
#endif
