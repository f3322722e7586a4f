// Test support: the one-off endpoints the fault and upload tests need, served by CurlfireTesting's
// MockServer inside the test process (they were routes of scripts/fault-server.py). What MockServer
// cannot say faithfully — resets (RST), malformed bytes, a TLS port that closes after the handshake,
// two unsolicited `100 Continue`s — stays on the Python fault server (Support/FaultServer.swift).
import CurlfireTesting
import Foundation

/// Responses and dispatchers with the same wire behaviour as fault-server.py's routes of the same name.
///
/// The responses are computed, not `static let`: a global holding a `Data` keeps its buffer behind a
/// pointer with tag bits (`Data`'s representation enum), which LeakSanitizer does not recognise as a
/// reference, so CI's leak step reported each one as leaked.
enum MockEndpoints {
    /// A `MockServer` answering the routes of ``fault(_:)``.
    static func faultServer() throws -> MockServer {
        try MockServer(dispatcher: fault)
    }

    /// `/ok`, `/short-body`, `/stall`, `/never-answer`, `/slowloris`, `/redirect-loop`; any other path `404`.
    static func fault(_ request: RecordedRequest) -> MockResponse {
        switch request.pathWithoutQuery {
        case "/ok": ok
        case "/short-body": shortBody
        case "/stall": stall
        case "/never-answer": neverAnswer
        case "/slowloris": slowloris
        case "/redirect-loop": redirect(to: "/redirect-loop")
        default: MockResponse(statusCode: 404)
        }
    }

    /// `/ok`: a normal `200` with the body `ok` (a control).
    static var ok: MockResponse {
        MockResponse(headers: ["Content-Type": "text/plain"], body: Data("ok".utf8))
    }

    /// `/short-body`: `Content-Length: 100000`, the first 50,000 bytes, then a clean close (FIN).
    static var shortBody: MockResponse {
        MockResponse(headers: ["Content-Type": "application/octet-stream"],
                     body: faultBody(count: 100_000)).disconnect(.midBody)
    }

    /// `/stall`: a head declaring 1,000 bytes, then nothing. The server waits on the connection for
    /// another request, so it stays open and silent until the client gives up or the server stops.
    static var stall: MockResponse {
        MockResponse(headers: ["Content-Length": "1000", "Content-Type": "text/plain"])
    }

    /// `/never-answer`: the request is read, then nothing for a minute (a server's shutdown ends the wait).
    static var neverAnswer: MockResponse {
        MockResponse.text("too late").delayed(by: 60)
    }

    /// `/slowloris`: a head declaring 1,000 bytes, then the body at one byte per second.
    static var slowloris: MockResponse {
        MockResponse(headers: ["Content-Type": "text/plain"],
                     body: Data(repeating: UInt8(ascii: "x"), count: 1_000)).throttled(bytesPerSecond: 1)
    }

    /// A `302 Found` to `location`, with an empty body, keeping the connection alive.
    static func redirect(to location: String) -> MockResponse {
        MockResponse(statusCode: 302, headers: ["Location": location])
    }

    /// fault-server.py's body bytes: byte `i` is `(i * 31 + 7) mod 256`.
    static func faultBody(count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    // MARK: - Uploads

    /// What `POST /digest` answers: the request body's length and CRC-32 and whether it came chunked.
    struct Digest: Codable, Equatable {
        let length: Int64
        let crc32: UInt32
        let chunked: Bool
    }

    /// `/digest` (any method): ``Digest`` of the request as the server received it (the chunked
    /// coding removed), as JSON.
    static func digest(_ request: RecordedRequest) -> MockResponse {
        let chunked = request.header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        return .json(Digest(length: Int64(request.body.count), crc32: CRC32.of(request.body), chunked: chunked))
    }
}

/// `/flaky?key=K&fail=N`: counts the requests of each key; the first `N` (1 by default) get `503`,
/// later ones `200`, with a JSON body `{"attempt", "failing", "key"}`. Thread-safe: a dispatcher
/// runs on every connection's thread.
final class FlakyEndpoint: @unchecked Sendable {
    private struct Reply: Encodable {
        let key: String
        let attempt: Int
        let failing: Bool
    }

    /// Guards `counts`.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    /// The answer to `request`, counting it.
    func respond(to request: RecordedRequest) -> MockResponse {
        let items = request.queryItems
        let key = items.first { $0.name == "key" }?.value ?? ""
        let fail = items.first { $0.name == "fail" }?.value.flatMap(Int.init) ?? 1
        let attempt = lock.withLock { () -> Int in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
        let failing = attempt <= fail
        return .json(Reply(key: key, attempt: attempt, failing: failing), statusCode: failing ? 503 : 200)
    }
}
