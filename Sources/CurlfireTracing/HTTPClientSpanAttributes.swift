#if Tracing
import Curlfire
import Foundation
import FoundationNetworking
import Tracing

/// OpenTelemetry's HTTP client span attributes, from Curlfire's request, response and metrics.
enum HTTPClientSpanAttributes {
    /// Query parameters whose values OpenTelemetry says to redact in `url.full` (signatures).
    private static let sensitiveQueryItems: Set<String> = ["AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature"]

    /// `http.request.method`, `url.full`, `server.address`, `server.port`.
    static func setRequestAttributes(of request: URLRequest, on span: any Span) {
        span.attributes["http.request.method"] = request.httpMethod ?? "GET"
        guard let url = request.url else { return }
        span.attributes["url.full"] = redacted(url)
        if let host = url.host { span.attributes["server.address"] = host }
        if let port = url.port ?? defaultPort(scheme: url.scheme) { span.attributes["server.port"] = port }
    }

    /// `url.full` without credentials: the user and password become `REDACTED`, and so do the
    /// values of signature query parameters.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        if components.user != nil { components.user = "REDACTED" }
        if components.password != nil { components.password = "REDACTED" }
        if let items = components.queryItems, items.contains(where: { sensitiveQueryItems.contains($0.name) }) {
            components.queryItems = items.map { item in
                sensitiveQueryItems.contains(item.name) ? URLQueryItem(name: item.name, value: "REDACTED") : item
            }
        }
        return components.string ?? url.absoluteString
    }

    /// `network.protocol.version`: `"1.1"`, `"2"` from libcurl's `"HTTP/1.1"`, `"HTTP/2"`.
    static func protocolVersion(_ httpVersion: String?) -> String? {
        guard let httpVersion else { return nil }
        return httpVersion.hasPrefix("HTTP/") ? String(httpVersion.dropFirst(5)) : httpVersion
    }

    /// `error.type`: the transport cause (`timedOut`, `cannotConnectToHost`, …), else the
    /// `CurlfireError` case (`explicitlyCancelled`, `serverTrustEvaluationFailed`, …).
    static func errorType(_ error: CurlfireError) -> String {
        if case let .sessionTaskFailed(code, _) = error { return caseName(code) }
        return caseName(error)
    }

    /// The name of an enum case, without its associated values.
    private static func caseName(_ value: Any) -> String {
        if let label = Mirror(reflecting: value).children.first?.label { return label }
        let text = String(describing: value)
        return text.firstIndex(of: "(").map { String(text[..<$0]) } ?? text
    }

    private static func defaultPort(scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }
}
#endif
