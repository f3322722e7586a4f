import Foundation
internal import COpenSSL

/// The opening handshake (RFC 6455 section 4): the upgrade request a client sends and the checks
/// on the server's answer. Pure: no I/O, unit-tested without a network.
struct WebSocketHandshake: Sendable {
    /// The request's URL (`ws`/`wss` or `http`/`https`).
    let url: URL
    /// `Sec-WebSocket-Key`: 16 random bytes, base64.
    let key: String
    /// Subprotocols offered, in order of preference.
    let protocols: [String]
    /// Extra header fields (the request's, then the session's defaults it does not set).
    let headers: [(name: String, value: String)]
    /// Whether permessage-deflate is offered.
    let offersDeflate: Bool

    /// The GUID of RFC 6455 section 1.3.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Header fields the handshake sets itself: a user's value for one of them is not sent.
    private static let reserved: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "content-length", "transfer-encoding",
    ]

    /// A new random key.
    static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// `Sec-WebSocket-Accept` for `key`: base64(SHA-1(key + GUID)).
    static func acceptValue(for key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil)
        return Data(digest.prefix(Int(length))).base64EncodedString()
    }

    /// The request bytes; throws `invalidHeader` for a name or value with CR, LF or NUL, and for a
    /// subprotocol that is not an HTTP token.
    func requestBytes() throws(CurlfireError) -> [UInt8] {
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let host = url.host ?? ""
        let hostField = host.contains(":") ? "[\(host)]" : host
        let authority = url.port.map { "\(hostField):\($0)" } ?? hostField
        var lines = ["GET \(target) HTTP/1.1", "Host: \(authority)", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13"]
        if !protocols.isEmpty {
            for name in protocols where name.isEmpty || !name.allSatisfy(Self.isTokenCharacter) {
                throw .invalidHeader(name: "Sec-WebSocket-Protocol")
            }
            lines.append("Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))")
        }
        if offersDeflate { lines.append("Sec-WebSocket-Extensions: \(PerMessageDeflateParameters.offer)") }
        for (name, value) in headers where !Self.reserved.contains(name.lowercased()) {
            if Self.hasControl(name) || Self.hasControl(value) || name.isEmpty { throw .invalidHeader(name: name) }
            lines.append("\(name): \(value)")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    private static func hasControl(_ text: String) -> Bool {
        text.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 32, ascii < 127 else { return false }
        return !"()<>@,;:\\\"/[]?={}".contains(character)
    }

    /// What the handshake agreed.
    struct Agreement: Sendable, Equatable {
        var subprotocol: String?
        var deflate: PerMessageDeflateParameters?
    }

    /// Checks the server's answer: status 101, `Upgrade: websocket`, `Connection: Upgrade`, the
    /// right `Sec-WebSocket-Accept`, a subprotocol among those offered, only offered extensions.
    func validate(_ head: WebSocketResponseHead) throws(CurlfireError) -> Agreement {
        do {
            return try check(head)
        } catch {
            throw .webSocketFailed(reason: error.reason)
        }
    }

    /// A reason as an `Error`, for typed throws.
    private struct Failure: Error { let reason: CurlfireError.WebSocketFailureReason }

    private func check(_ head: WebSocketResponseHead) throws(Failure) -> Agreement {
        guard head.statusCode == 101 else { throw Failure(reason: .upgradeRejected(statusCode: head.statusCode)) }
        guard head.value(for: "upgrade")?.lowercased() == "websocket" else {
            throw Failure(reason: .invalidHandshake("Upgrade is \(head.value(for: "upgrade") ?? "missing"), not websocket"))
        }
        let connection = head.value(for: "connection")?.lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        guard connection.contains("upgrade") else { throw Failure(reason: .invalidHandshake("Connection does not include Upgrade")) }
        guard head.value(for: "sec-websocket-accept") == Self.acceptValue(for: key) else {
            throw Failure(reason: .invalidHandshake("Sec-WebSocket-Accept does not match the key"))
        }
        var agreement = Agreement()
        if let chosen = head.value(for: "sec-websocket-protocol") {
            guard protocols.contains(chosen) else { throw Failure(reason: .invalidHandshake("the server chose subprotocol \(chosen), not offered")) }
            agreement.subprotocol = chosen
        }
        do {
            agreement.deflate = try PerMessageDeflateParameters.negotiated(from: head.value(for: "sec-websocket-extensions"))
        } catch {
            throw Failure(reason: .invalidHandshake(error.detail))
        }
        if agreement.deflate != nil, !offersDeflate { throw Failure(reason: .invalidHandshake("the server accepted permessage-deflate, not offered")) }
        return agreement
    }
}

/// The head of the upgrade response: status line and fields, parsed from the bytes up to the
/// empty line.
struct WebSocketResponseHead: Sendable, Equatable {
    var httpVersion = "HTTP/1.1"
    var statusCode = 0
    var fields: [(name: String, value: String)] = []

    /// The largest head accepted.
    static let maximumSize = 64 * 1024

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.httpVersion == rhs.httpVersion && lhs.statusCode == rhs.statusCode
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// The first value of a field (case-insensitive name); repeated fields are joined with ", ".
    func value(for name: String) -> String? {
        let values = fields.filter { $0.name.lowercased() == name }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The end of the head in `bytes` (the index after `\r\n\r\n`), `nil` if not yet there.
    static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10
            && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// Parses a head (without what follows it); `nil` when it is not an HTTP/1.x response head.
    init?(_ bytes: ArraySlice<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard let statusLine = lines.first else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]), (100...599).contains(code) else {
            return nil
        }
        httpVersion = String(parts[0])
        statusCode = code
        lines.removeFirst()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            fields.append((String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                           String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
    }

    /// The `HTTPURLResponse` users see.
    func response(for url: URL) -> HTTPURLResponse? {
        var headers: [String: String] = [:]
        for (name, value) in fields { headers[name] = headers[name].map { "\($0), \(value)" } ?? value }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headers)
    }
}
