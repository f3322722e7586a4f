import Curlfire
import Foundation

/// The responses of a HAR archive, by request: method, path and query. Repeats of one request are
/// answered in the order they were recorded, the last one again once all were served.
///
/// `@unchecked Sendable`: `served` is read and written only under `lock`; the rest is immutable.
final class HARReplay: @unchecked Sendable {
    private let responses: [String: [MockResponse]]
    private let lock = NSLock()
    private var served: [String: Int] = [:]

    init(_ har: HAR) {
        var responses: [String: [MockResponse]] = [:]
        for entry in har.log.entries where entry.response.status > 0 {
            guard let target = Self.target(entry.request.url) else { continue }
            responses[Self.key(entry.request.method, target), default: []].append(Self.response(entry))
        }
        self.responses = responses
    }

    /// The recorded answer to `request`, or a `404` saying none was recorded.
    func answer(_ request: RecordedRequest) -> MockResponse {
        let key = Self.key(request.method, request.path)
        guard let recorded = responses[key], !recorded.isEmpty else {
            return MockResponse(statusCode: 404, headers: ["Content-Type": "text/plain; charset=utf-8"],
                                body: Data("MockServer: no response recorded in the HAR file for \(key)\n".utf8))
        }
        let index = lock.withLock { () -> Int in
            let index = served[key, default: 0]
            served[key] = index + 1
            return index
        }
        return recorded[min(index, recorded.count - 1)]
    }

    static func key(_ method: String, _ target: String) -> String { "\(method.uppercased()) \(target)" }

    /// A URL's path and query as a request line carries them: `/get?a=1`.
    static func target(_ url: String) -> String? {
        guard let components = URLComponents(string: url) else { return nil }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// Framing and encoding headers are the replaying server's own (the recorded body is decoded).
    private static let droppedHeaders: Set<String> = ["content-length", "transfer-encoding", "content-encoding",
                                                      "connection", "keep-alive"]

    static func response(_ entry: HAR.Entry) -> MockResponse {
        var headers: [String: String] = [:]
        for header in entry.response.headers where !droppedHeaders.contains(header.name.lowercased()) {
            var value = header.value
            if header.name.lowercased() == "location" { value = relativeLocation(value, recordedURL: entry.request.url) }
            if let existing = headers[header.name] {
                value = existing + ", " + value
            }
            headers[header.name] = value
        }
        return MockResponse(statusCode: entry.response.status, headers: headers, body: entry.response.content.data ?? Data())
    }

    /// A `Location` on the recorded origin made relative, so a redirect comes back to the replaying server.
    static func relativeLocation(_ location: String, recordedURL: String) -> String {
        guard let target = URLComponents(string: location), target.host != nil,
              let recorded = URLComponents(string: recordedURL),
              target.scheme == recorded.scheme, target.host == recorded.host, target.port == recorded.port,
              let path = Self.target(location)
        else { return location }
        return path
    }
}
