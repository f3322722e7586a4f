import CurlfireTesting
import Foundation
import XCTest

/// The server's HTTP/1.1 on the wire, with a bare socket as the client.
final class MockServerWireTests: XCTestCase {
    func testThatExpectContinueGets100BeforeTheBodyIsSent() throws {
        let server = try MockServer()
        server.enqueue(.text("stored", statusCode: 201))
        let connection = try RawConnection(port: server.port)
        connection.send("PUT /files/a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = connection.read(until: "\r\n\r\n")
        XCTAssertEqual(interim, "HTTP/1.1 100 Continue\r\n\r\n", "sent before any body byte")
        XCTAssertEqual(server.requestCount, 0, "the request is not complete yet")

        connection.send("hello")
        let final = connection.read(until: "stored")
        XCTAssertTrue(final.hasPrefix("HTTP/1.1 201 Created\r\n"), final)
        XCTAssertEqual(server.takeRequest()?.bodyString, "hello")
    }

    func testThatAChunkedRequestBodyIsDecodedAndTheConnectionKeptAlive() throws {
        let server = try MockServer()
        server.enqueue(.text("first"))
        server.enqueue(.text("second"))
        let connection = try RawConnection(port: server.port)
        connection.send("POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: 1\r\n\r\n")
        XCTAssertTrue(connection.read(until: "first").hasSuffix("first"))
        connection.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(connection.read(until: "second").hasSuffix("second"))

        let first = try XCTUnwrap(server.takeRequest())
        let second = try XCTUnwrap(server.takeRequest())
        XCTAssertEqual(first.bodyString, "hello, world")
        XCTAssertEqual(first.headers["transfer-encoding"], "chunked")
        XCTAssertEqual(second.path, "/next")
        XCTAssertEqual(first.connectionIndex, second.connectionIndex)
    }

    func testThatConnectionCloseFromTheClientIsHonoured() throws {
        let server = try MockServer()
        server.enqueue(.text("bye"))
        let connection = try RawConnection(port: server.port)
        connection.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let reply = connection.read(until: "\u{0}")  // read until the server closes
        XCTAssertTrue(reply.contains("\r\nConnection: close\r\n"), reply)
        XCTAssertTrue(reply.hasSuffix("\r\n\r\nbye"), reply)
    }

    func testThatAMalformedRequestGets400AndAClosedConnection() throws {
        let server = try MockServer()
        let connection = try RawConnection(port: server.port)
        connection.send("NONSENSE\r\n\r\n")
        let reply = connection.read(until: "\u{0}")
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), reply)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testThatHeadGetsContentLengthButNoBody() throws {
        let server = try MockServer()
        server.enqueue(.text("twelve bytes"))
        server.enqueue(.text("after"))
        let connection = try RawConnection(port: server.port)
        connection.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let replies = connection.read(until: "after")
        XCTAssertTrue(replies.contains("Content-Length: 12\r\n"), replies)
        XCTAssertFalse(replies.contains("twelve bytes"), replies)
        XCTAssertTrue(replies.hasSuffix("\r\n\r\nafter"), replies)
    }
}
