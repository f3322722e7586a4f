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

    /// Connections open in the session's pool, per state: a `Meter` set on every change of the pool.
    /// Dimensions: connection state, host, port.
    public static let openConnections = "http.client.open_connections"
    /// How long each connection was open, from its socket's creation to its close: a `Timer`
    /// (nanoseconds, displayed in seconds). Dimensions: host, port.
    public static let connectionDuration = "http.client.connection.duration"
    /// Request body bytes of each request (its `Content-Length`, or the body's size): a `Recorder`
    /// (histogram). Dimensions: method, status, host.
    public static let requestBodySize = "http.client.request.body.size"
    /// Response body bytes of each request (its `Content-Length`): a `Recorder` (histogram).
    /// Dimensions: method, status, host.
    public static let responseBodySize = "http.client.response.body.size"

    /// Dimension: the state of a connection, ``idle`` or ``active``.
    public static let connectionState = "http.connection.state"
    /// ``connectionState``: no request is using the connection.
    public static let idle = "idle"
    /// ``connectionState``: a request is using the connection.
    public static let active = "active"
    /// Dimension: the port the connection goes to, `443`.
    public static let port = "server.port"
    /// Dimension: the request method, `GET`.
    public static let method = "http.request.method"
    /// Dimension: the final status code, `200`; `none` when no response arrived.
    public static let status = "http.response.status_code"
    /// Dimension: the host the request went to, `api.example.com`; `none` without a URL.
    public static let host = "server.address"
}
#endif
