import Foundation
import FoundationNetworking

/// Turns a recorded exchange into a HAR entry: headers, cookies, bodies, sizes and timings,
/// credentials redacted unless told otherwise. Pure: no I/O, no shared state.
struct HAREntryBuilder {
    /// What a secret becomes.
    static let redacted = "[redacted]"

    let redactsCredentials: Bool
    let maximumBodySize: Int?

    func entry(_ exchange: HARExchange) -> HAR.Entry {
        let metrics = exchange.metrics
        let timings = HAR.Timings(metrics: metrics)
        return HAR.Entry(
            startedDateTime: Self.isoDate(metrics.startDate),
            time: timings.total,
            request: request(exchange),
            response: response(exchange),
            timings: timings,
            serverIPAddress: metrics.remoteAddress.flatMap { $0.isEmpty ? nil : $0 },
            connection: metrics.localPort.flatMap { $0 > 0 ? String($0) : nil },
            error: exchange.error.map { "\($0)" })
    }

    // MARK: - Request

    func request(_ exchange: HARExchange) -> HAR.Request {
        let sent = exchange.sent
        let url = sent?.url ?? exchange.metrics.effectiveURL
        let urlText = url.map { redactsCredentials ? CredentialRedaction.text(of: $0) : $0.absoluteString } ?? ""
        let fields = sentHeaders(exchange)
        let body = exchange.body ?? Data()
        let bytesSent = Int(clamping: exchange.metrics.bytesSent)
        let contentType = fields.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        return HAR.Request(
            method: sent?.httpMethod ?? "GET",
            url: urlText.components(separatedBy: "#")[0],
            httpVersion: exchange.metrics.httpVersion ?? "",
            cookies: Self.requestCookies(fields).map(redact),
            headers: fields.map(redact),
            queryString: url.map(Self.query) ?? [],
            postData: body.isEmpty ? nil : postData(body, mimeType: contentType),
            headersSize: bytesSent > 0 ? max(-1, bytesSent - body.count) : -1,
            bodySize: body.count)
    }

    /// The header fields as libcurl sends them: `Host`, the request's own, then the session's
    /// defaults the request does not override.
    func sentHeaders(_ exchange: HARExchange) -> [HAR.NameValue] {
        var fields: [HAR.NameValue] = []
        let own = (exchange.sent?.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        let names = Set(own.map { $0.key.lowercased() })
        if !names.contains("host"), let url = exchange.sent?.url, let host = url.host {
            let bracketed = host.contains(":") ? "[\(host)]" : host
            fields.append(HAR.NameValue(name: "Host", value: url.port.map { "\(bracketed):\($0)" } ?? bracketed))
        }
        fields += own.map { HAR.NameValue(name: $0.key, value: $0.value) }
        for header in exchange.defaultHeaders where !names.contains(header.name.lowercased()) {
            fields.append(HAR.NameValue(name: header.name, value: header.value))
        }
        return fields
    }

    func postData(_ body: Data, mimeType: String) -> HAR.PostData {
        if let maximumBodySize, body.count > maximumBodySize {
            return HAR.PostData(mimeType: mimeType, text: "",
                                comment: "Body of \(body.count) bytes not recorded (limit \(maximumBodySize) bytes).")
        }
        if mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded"), let text = String(data: body, encoding: .utf8) {
            return HAR.PostData(mimeType: mimeType, params: Self.formParameters(text))
        }
        let (text, encoding) = Self.text(of: body, mimeType: mimeType)
        return HAR.PostData(mimeType: mimeType, text: text, encoding: encoding)
    }

    // MARK: - Response

    func response(_ exchange: HARExchange) -> HAR.Response {
        guard let response = exchange.response else {
            return HAR.Response(status: 0, statusText: "", httpVersion: exchange.metrics.httpVersion ?? "", headers: [],
                                content: HAR.Content(size: 0, mimeType: "", comment: "No response was received."))
        }
        let fields = response.allHeaderFields.compactMap { key, value -> HAR.NameValue? in
            guard let name = key as? String else { return nil }
            return HAR.NameValue(name: name, value: "\(value)")
        }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        func field(_ name: String) -> String? { fields.first { $0.name.lowercased() == name }?.value }
        let mimeType = field("content-type") ?? ""
        let encoded = field("content-encoding").map { !$0.isEmpty && $0.lowercased() != "identity" } ?? false
        var wireBody = field("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        if wireBody < 0, !encoded, let data = exchange.responseBody { wireBody = data.count }
        let received = Int(clamping: exchange.metrics.bytesReceived)
        let headersSize = wireBody >= 0 && received >= wireBody && received > 0 ? received - wireBody : -1
        return HAR.Response(
            status: response.statusCode,
            // libcurl hands over no reason phrase: the standard text of the status code.
            statusText: HTTPURLResponse.localizedString(forStatusCode: response.statusCode),
            httpVersion: exchange.metrics.httpVersion ?? "",
            cookies: Self.responseCookies(response).map(redact),
            headers: fields.map(redact),
            content: content(exchange, mimeType: mimeType, wireBody: wireBody),
            redirectURL: field("location") ?? "",
            headersSize: headersSize,
            bodySize: headersSize >= 0 ? wireBody : -1)
    }

    func content(_ exchange: HARExchange, mimeType: String, wireBody: Int) -> HAR.Content {
        guard let data = exchange.responseBody else {
            let note = exchange.bodyNote ?? "The body was not delivered to a response handler."
            return HAR.Content(size: max(0, wireBody), mimeType: mimeType, comment: note)
        }
        let compression = wireBody >= 0 && data.count > wireBody ? data.count - wireBody : nil
        if let maximumBodySize, data.count > maximumBodySize {
            return HAR.Content(size: data.count, compression: compression, mimeType: mimeType,
                               comment: "Body of \(data.count) bytes not recorded (limit \(maximumBodySize) bytes).")
        }
        let (text, encoding) = Self.text(of: data, mimeType: mimeType)
        return HAR.Content(size: data.count, compression: compression, mimeType: mimeType, text: text, encoding: encoding)
    }

    // MARK: - Redaction

    func redact(_ field: HAR.NameValue) -> HAR.NameValue {
        guard redactsCredentials, CredentialRedaction.isSensitive(header: field.name) else { return field }
        return HAR.NameValue(name: field.name, value: Self.redacted)
    }

    func redact(_ cookie: HAR.Cookie) -> HAR.Cookie {
        guard redactsCredentials else { return cookie }
        var cookie = cookie
        cookie.value = Self.redacted
        return cookie
    }

    // MARK: - Parsing helpers

    /// A body as text when its type is textual and it is UTF-8, else base64.
    static func text(of data: Data, mimeType: String) -> (text: String, encoding: String?) {
        let type = mimeType.lowercased()
        let textual = type.isEmpty || type.hasPrefix("text/") || type.contains("json") || type.contains("xml")
            || type.contains("javascript") || type.contains("x-www-form-urlencoded") || type.contains("event-stream")
        if textual, let text = String(data: data, encoding: .utf8) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    static func query(_ url: URL) -> [HAR.NameValue] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.map { HAR.NameValue(name: $0.name, value: $0.value ?? "") }
    }

    static func formParameters(_ text: String) -> [HAR.Param] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return HAR.Param(name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func requestCookies(_ fields: [HAR.NameValue]) -> [HAR.Cookie] {
        fields.filter { $0.name.lowercased() == "cookie" }.flatMap { field in
            field.value.split(separator: ";").compactMap { pair -> HAR.Cookie? in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { return nil }
                return HAR.Cookie(name: name, value: parts.count > 1 ? String(parts[1]) : "")
            }
        }
    }

    static func responseCookies(_ response: HTTPURLResponse) -> [HAR.Cookie] {
        guard let url = response.url else { return [] }
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String { headers[key] = "\(value)" }
        }
        return HTTPCookie.cookies(withResponseHeaderFields: headers, for: url).map { cookie in
            HAR.Cookie(name: cookie.name, value: cookie.value, path: cookie.path, domain: cookie.domain,
                       expires: cookie.expiresDate.map(isoDate), httpOnly: cookie.isHTTPOnly, secure: cookie.isSecure)
        }
    }

    /// `2026-11-26T09:00:00.123Z`: ISO 8601, UTC, milliseconds.
    static func isoDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
