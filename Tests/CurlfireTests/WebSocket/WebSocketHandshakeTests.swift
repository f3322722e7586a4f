@testable import Curlfire
import Foundation
import XCTest

/// The opening handshake without a network: the request's bytes and the checks on the answer.
final class WebSocketHandshakeTests: XCTestCase {
    private let handshake = WebSocketHandshake(
        url: URL(string: "http://example.com:8080/chat?room=1")!, key: "dGhlIHNhbXBsZSBub25jZQ==",
        protocols: ["chat", "superchat"], headers: [("Origin", "http://example.com"), ("Upgrade", "evil")], offersDeflate: true)

    private func head(_ text: String) -> WebSocketResponseHead? {
        WebSocketResponseHead(Array(text.utf8)[...])
    }

    func testHandshake_rfcAcceptValue() {
        XCTAssertEqual(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(Data(base64Encoded: WebSocketHandshake.makeKey())?.count, 16)
    }

    func testHandshake_requestBytes() throws {
        let text = String(decoding: try handshake.requestBytes(), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("GET /chat?room=1 HTTP/1.1\r\nHost: example.com:8080\r\n"), text)
        XCTAssertTrue(text.contains("Sec-WebSocket-Protocol: chat, superchat\r\n"))
        XCTAssertTrue(text.contains("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"))
        XCTAssertTrue(text.contains("Origin: http://example.com\r\n"))
        XCTAssertFalse(text.contains("evil"), "a user's Upgrade header is not sent")
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"))
        let injected = WebSocketHandshake(url: URL(string: "http://h/")!, key: "k", protocols: [], headers: [("X", "a\r\nB: c")],
                                          offersDeflate: false)
        XCTAssertThrowsError(try injected.requestBytes())
        let badProtocol = WebSocketHandshake(url: URL(string: "http://h/")!, key: "k", protocols: ["a b"], headers: [], offersDeflate: false)
        XCTAssertThrowsError(try badProtocol.requestBytes())
    }

    func testHandshake_validation() throws {
        let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: superchat\r\n\r\n"
        let agreement = try handshake.validate(XCTUnwrap(head(good)))
        XCTAssertEqual(agreement.subprotocol, "superchat")
        XCTAssertNil(agreement.deflate)
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "101 Switching Protocols", with: "200 OK"), "status"),
            (good.replacingOccurrences(of: "Upgrade: websocket", with: "Upgrade: h2c"), "upgrade"),
            (good.replacingOccurrences(of: "Connection: Upgrade", with: "Connection: keep-alive"), "connection"),
            (good.replacingOccurrences(of: "s3pP", with: "AAAA"), "accept"),
            (good.replacingOccurrences(of: "superchat", with: "other"), "protocol"),
            (good.replacingOccurrences(of: "\r\n\r\n", with: "\r\nSec-WebSocket-Extensions: x-other\r\n\r\n"), "extension"),
        ]
        for (text, label) in cases {
            XCTAssertThrowsError(try handshake.validate(XCTUnwrap(head(text))), label) { error in
                XCTAssertNotNil((error as? CurlfireError)?.webSocketFailureReason, label)
            }
        }
    }

    func testHandshake_headParsing() {
        XCTAssertNil(head("SSH-2.0-OpenSSH\r\n\r\n"))
        XCTAssertEqual(WebSocketResponseHead.endOfHead(in: Array("HTTP/1.1 101 X\r\nA: b\r\n\r\nframes".utf8)), 24)
        XCTAssertNil(WebSocketResponseHead.endOfHead(in: Array("HTTP/1.1 101 X\r\nA: b\r\n".utf8)))
    }
}
