import Foundation

/// Writes one ``MockResponse`` to a connection, honouring its delay, pace, coding and disconnect point.
struct ResponseWriter {
    /// The largest slice written at once: the body is never copied whole.
    static let sliceSize = 64 * 1024

    let stream: ByteStream
    /// Waits up to the given seconds; `true` when the server shut down meanwhile.
    let waitOrStop: (TimeInterval) -> Bool

    /// Sends `response` to the request `head`.
    ///
    /// - Returns: Whether the connection stays open for another request.
    func send(_ response: MockResponse, to head: RequestHead) throws -> Bool {
        if response.delay > 0, waitOrStop(response.delay) { return false }
        if endsResponse(response, at: .beforeHeaders) { return false }

        let closing = head.wantsClose || response.disconnectPoint != nil || response.stallPoint != nil
            || response.headers.contains { $0.key.lowercased() == "connection" && $0.value.lowercased().contains("close") }
        let hasBody = head.method != "HEAD" && !(100..<200).contains(response.statusCode)
            && response.statusCode != 204 && response.statusCode != 304
        try stream.write(headText(response, closing: closing, hasBody: hasBody))
        if endsResponse(response, at: .afterHeaders) { return false }

        if hasBody {
            let stopsMidBody = response.disconnectPoint == .midBody || response.stallPoint == .midBody
            let limit = stopsMidBody ? response.midBodyLength : response.body.count
            let written = response.eventEnds.isEmpty ? try writeBody(response, upTo: limit)
                : try writeEvents(response, upTo: limit)
            guard written else { return false }
            if endsResponse(response, at: .midBody) { return false }
            if response.isChunked { try stream.write("0\r\n\r\n") }
        }
        return !closing
    }

    /// Whether the response ends at `point`: after its stall there (if any), or at its disconnect point.
    private func endsResponse(_ response: MockResponse, at point: MockResponse.DisconnectPoint) -> Bool {
        if response.stallPoint == point {
            _ = waitOrStop(response.stallDuration)
            return true
        }
        return response.disconnectPoint == point
    }

    /// The status line and header fields, with the framing headers the response does not set.
    /// (`Content-Length` is also sent for `HEAD`: the length a `GET` would have.)
    private func headText(_ response: MockResponse, closing: Bool, hasBody: Bool) -> String {
        var text = "HTTP/1.1 \(response.statusCode) \(HTTPReasonPhrase.for(response.statusCode))\r\n"
        let names = Set(response.headers.keys.map { $0.lowercased() })
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
            text += "\(name): \(value)\r\n"
        }
        if response.isChunked && hasBody {
            if !names.contains("transfer-encoding") { text += "Transfer-Encoding: chunked\r\n" }
        } else if !names.contains("content-length") && !(100..<200).contains(response.statusCode)
                    && response.statusCode != 204 && response.statusCode != 304 {
            text += "Content-Length: \(response.body.count)\r\n"
        }
        if closing && !names.contains("connection") { text += "Connection: close\r\n" }
        return text + "\r\n"
    }

    /// Writes the events of an event stream ending within the first `limit` bytes, one chunk each,
    /// waiting the response's interval before each after the first.
    ///
    /// - Returns: `false` when the server shut down during a wait.
    private func writeEvents(_ response: MockResponse, upTo limit: Int) throws -> Bool {
        var start = 0
        for (index, end) in response.eventEnds.enumerated() where end <= limit {
            if index > 0, response.eventInterval > 0, waitOrStop(response.eventInterval) { return false }
            let bytes = response.body[start..<end]
            try stream.write(String(bytes.count, radix: 16) + "\r\n")
            try bytes.withUnsafeBytes { try stream.write($0) }
            try stream.write("\r\n")
            start = end
        }
        return true
    }

    /// Writes the first `limit` bytes of the body in slices, paced when throttled.
    ///
    /// - Returns: `false` when the server shut down during a pause.
    private func writeBody(_ response: MockResponse, upTo limit: Int) throws -> Bool {
        let slice = response.bytesPerSecond.map { min(Self.sliceSize, max(1, $0 / 10)) } ?? Self.sliceSize
        let started = Date()
        return try response.body.withUnsafeBytes { (body: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < limit {
                if let rate = response.bytesPerSecond, offset > 0 {
                    let due = Double(offset) / Double(rate) - Date().timeIntervalSince(started)
                    if due > 0, waitOrStop(due) { return false }
                }
                let count = min(slice, limit - offset)
                let bytes = UnsafeRawBufferPointer(rebasing: body[offset..<(offset + count)])
                if response.isChunked { try stream.write(String(count, radix: 16) + "\r\n") }
                try stream.write(bytes)
                if response.isChunked { try stream.write("\r\n") }
                offset += count
            }
            return true
        }
    }
}

/// Reason phrases for the status line.
enum HTTPReasonPhrase {
    static func `for`(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(code)"
        }
    }
}
