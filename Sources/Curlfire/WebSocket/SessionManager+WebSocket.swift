import Foundation
import FoundationNetworking

extension SessionManager {
    /// Creates a WebSocket connection to `url` (`ws://`, `wss://`, or `http://` / `https://`),
    /// opened on first use. `wss` is trusted exactly as HTTPS to the same host: the host's
    /// ``ServerTrustPolicy`` in the TLS handshake, the client identity, the session's CA settings.
    ///
    /// - Parameters:
    ///   - url:           The URL.
    ///   - protocols:     Subprotocols offered (`Sec-WebSocket-Protocol`), in order of preference. None by default.
    ///   - headers:       Extra header fields of the upgrade request (the session's default headers are added
    ///                    where not set). `nil` by default.
    ///   - configuration: Limits, pings, timeouts and compression. ``WebSocketConfiguration/default`` by default.
    /// - Returns: The request; errors in building it (an invalid URL, an unsupported scheme, a header
    ///   with CR or LF) are its outcome, reported by its messages and events.
    public func webSocketRequest(_ url: URLConvertible, protocols: [String] = [], headers: HTTPHeaders? = nil,
                                 configuration: WebSocketConfiguration = .default) -> WebSocketRequest {
        let resolved = Result { try url.asURL() }.mapError { $0 as? CurlfireError ?? .invalidURL(url: "\(url)") }
        let plan = resolved.flatMap { planWebSocket($0, protocols: protocols, headers: headers, configuration: configuration) }
        let connection = WebSocketConnection(url: try? resolved.get(), plan: plan, configuration: configuration)
        return WebSocketRequest(connection: connection, callbackQueue: callbackQueue)
    }

    private func planWebSocket(_ url: URL, protocols: [String], headers: HTTPHeaders?, configuration: WebSocketConfiguration)
        -> Result<(AttemptPlan, WebSocketHandshake), CurlfireError> {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        switch url.scheme?.lowercased() {
        case "ws", "http": components?.scheme = "http"
        case "wss", "https": components?.scheme = "https"
        default: return .failure(.webSocketFailed(reason: .unsupportedScheme(url.scheme ?? "")))
        }
        guard let transportURL = components?.url, url.host != nil else { return .failure(.invalidURL(url: url.absoluteString)) }
        let request = URLRequest(url: transportURL, timeoutInterval: self.configuration.timeoutIntervalForRequest)
        var options = planOptions(for: request, credential: nil, reportsProgress: false, followsWithoutAsking: false)
        options.httpVersion = .http1_1 // the upgrade is HTTP/1.1: no ALPN h2
        options.cookiesEnabled = false
        let plan = AttemptPlan(request: request, body: .none, options: options)
        var fields: [(name: String, value: String)] = (headers ?? HTTPHeaders()).map { ($0.name, $0.value) }
        for header in self.configuration.httpAdditionalHeaders
            where !fields.contains(where: { $0.name.lowercased() == header.name.lowercased() })
            && header.name.lowercased() != "accept-encoding" {
            fields.append((header.name, header.value))
        }
        let handshake = WebSocketHandshake(url: transportURL, key: WebSocketHandshake.makeKey(), protocols: protocols,
                                           headers: fields, offersDeflate: configuration.permessageDeflate)
        return .success((plan, handshake))
    }
}

/// Creates a WebSocket connection on ``SessionManager/default``; see
/// ``SessionManager/webSocketRequest(_:protocols:headers:configuration:)``.
public func webSocketRequest(_ url: URLConvertible, protocols: [String] = [], headers: HTTPHeaders? = nil,
                             configuration: WebSocketConfiguration = .default) -> WebSocketRequest {
    SessionManager.default.webSocketRequest(url, protocols: protocols, headers: headers, configuration: configuration)
}
