import Foundation

/// Serves the requests of one connection, in order, until it closes: on the connection's own thread.
struct ConnectionHandler {
    let core: ServerCore
    let stream: ByteStream
    let index: Int

    func run() {
        let reader = RequestReader(stream: stream)
        let writer = ResponseWriter(stream: stream, waitOrStop: core.waitOrStop)
        do {
            while let head = try reader.readHead() {
                if head.expectsContinue && head.version != "HTTP/1.0" {
                    try stream.write("HTTP/1.1 100 Continue\r\n\r\n")
                }
                let body = try reader.readBody(for: head)
                let request = core.record(head, body: body, connection: index)
                let response = core.response(for: request)
                guard try writer.send(response, to: head) else { break }
            }
            stream.finish()
        } catch let error as MalformedRequest {
            let text = "MockServer: malformed request: \(error.reason)\n"
            _ = try? writer.send(MockResponse.text(text, statusCode: 400).disconnectAfterwards(), to: RequestHead.unknown)
            stream.finish()
        } catch {
            // The client went away or the server is shutting down: nothing more to say.
        }
    }
}

extension MockResponse {
    /// The same response with `Connection: close`.
    fileprivate func disconnectAfterwards() -> MockResponse {
        var copy = self
        copy.headers["Connection"] = "close"
        return copy
    }
}

extension RequestHead {
    /// Stands in for a request that could not be parsed.
    fileprivate static let unknown = RequestHead(method: "GET", target: "/", version: "HTTP/1.1", headers: MockHeaders([]))
}
