import Curlfire
import Foundation

/// A real HTTP/1.1 server inside the test process, scripted response by response, that records
/// every request — OkHttp's MockWebServer for Curlfire.
///
/// ```swift
/// let server = try MockServer()
/// server.enqueue(.json(["id": 1]))
/// let user = try await client.fetchUser(baseURL: server.url("/"))
/// let request = try XCTUnwrap(server.takeRequest())
/// XCTAssertEqual(request.path, "/users/1?expand=true")
/// ```
///
/// It listens on `127.0.0.1` on a free port. Each accepted connection gets its own thread, keeps
/// alive (HTTP/1.1) until the client or a response closes it, reads `Content-Length` and chunked
/// request bodies, and answers `Expect: 100-continue` with `100 Continue` before reading the body.
///
/// **Answers.** Responses come from the queue (``enqueue(_:)``), one per request in arrival
/// order, or from a dispatcher closure (``init(tls:dispatcher:)``). When the queue is empty the
/// server answers `500 Internal Server Error` with a plain-text body that begins
/// `MockServer: no response enqueued`, so a test that scripted too few responses fails visibly.
///
/// **TLS.** `try MockServer(tls: .selfSigned())` serves HTTPS with a key and certificate made in
/// memory; trust ``certificate`` (`SessionConfiguration.trustedRootCertificates`) or pin it. A TLS
/// server sets the process's `SIGPIPE` disposition to ignored (OpenSSL writes to the socket with
/// `write`, which would otherwise kill the process when a client hangs up mid-response).
///
/// **Lifetime.** ``shutdown()`` (also run on `deinit`) closes the listener and every connection and
/// waits at most 5 seconds for the server's threads to finish.
public final class MockServer: Sendable, CustomStringConvertible {
    /// The port the server listens on (on `127.0.0.1`).
    public let port: Int
    /// The server's certificate when it serves TLS, else `nil`.
    public let certificate: Certificate?
    /// `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`.
    public let baseURL: URL

    private let core: ServerCore

    /// Starts a server that answers from its queue (see ``enqueue(_:)``).
    ///
    /// - Parameter tls: How to serve TLS, or `nil` for plain HTTP (the default).
    /// - Throws:        ``MockServerError`` when the socket or the TLS setup fails.
    public convenience init(tls: TLSConfiguration? = nil) throws {
        try self.init(tls: tls, responder: nil)
    }

    /// Starts a server that answers every request with what `dispatcher` returns, instead of a queue.
    ///
    /// The dispatcher runs on the connection's thread, once per request, possibly on several
    /// threads at once (one per connection): make it thread-safe. Requests are still recorded.
    ///
    /// - Parameters:
    ///   - tls:        How to serve TLS, or `nil` for plain HTTP (the default).
    ///   - dispatcher: The response for a request.
    /// - Throws:       ``MockServerError`` when the socket or the TLS setup fails.
    public convenience init(tls: TLSConfiguration? = nil,
                            dispatcher: @escaping @Sendable (RecordedRequest) -> MockResponse) throws {
        try self.init(tls: tls, responder: dispatcher)
    }

    private init(tls: TLSConfiguration?, responder: (@Sendable (RecordedRequest) -> MockResponse)?) throws {
        var context: TLSContext?
        var certificate: Certificate?
        if let tls {
            let identity = try SelfSignedIdentity(hosts: tls.hosts, validity: tls.validity)
            context = try TLSContext(identity: identity)
            certificate = identity.certificate
            TLSContext.ignoreSIGPIPE()
        }
        let listener = try Listener.open()
        core = try ServerCore(listener: listener, tls: context, dispatcher: responder)
        port = listener.port
        self.certificate = certificate
        let scheme = tls == nil ? "http" : "https"
        guard let base = URL(string: "\(scheme)://127.0.0.1:\(listener.port)") else {
            core.shutdown()
            throw MockServerError.socket(operation: "URL for port \(listener.port)", errno: EINVAL)
        }
        baseURL = base
    }

    deinit {
        core.shutdown()
    }

    /// The URL of `path` on this server: `url("/users?page=2")` is
    /// `http://127.0.0.1:PORT/users?page=2`. A missing leading `/` is added; characters a URL
    /// cannot hold are percent-encoded.
    ///
    /// - Parameter path: A path, with an optional query.
    /// - Returns:        The URL.
    public func url(_ path: String) -> URL {
        let target = path.hasPrefix("/") ? path : "/" + path
        if let url = URL(string: baseURL.absoluteString + target) { return url }
        let allowed = CharacterSet.urlPathAllowed.union(.urlQueryAllowed)
        let encoded = target.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return URL(string: baseURL.absoluteString + encoded) ?? baseURL
    }

    /// Adds `response` to the end of the queue: it answers the first request not yet answered.
    ///
    /// Ignored by a server created with a dispatcher.
    ///
    /// - Parameter response: The response to send.
    public func enqueue(_ response: MockResponse) {
        core.enqueue(response)
    }

    /// The oldest request not yet taken, waiting up to `timeout` seconds for one to arrive.
    ///
    /// Requests are returned in the order they were completely received (their body read).
    ///
    /// - Parameter timeout: How long to wait, in seconds. `5` by default.
    /// - Returns:           The request, or `nil` when none arrived in time (or the server was
    ///                      shut down with none left).
    public func takeRequest(timeout: TimeInterval = 5) -> RecordedRequest? {
        core.takeRequest(timeout: timeout)
    }

    /// How many requests the server has received in all (taken or not).
    public var requestCount: Int { core.requestCount }

    /// How many connections the server has accepted in all.
    public var connectionCount: Int { core.connectionCount }

    /// Stops the server: closes the listener and every connection (a response being sent is cut
    /// off) and waits at most 5 seconds for its threads to finish. Later calls do nothing.
    ///
    /// Requests already received can still be taken with ``takeRequest(timeout:)``.
    public func shutdown() {
        core.shutdown()
    }

    /// `MockServer(http://127.0.0.1:PORT)`.
    public var description: String { "MockServer(\(baseURL.absoluteString))" }
}
