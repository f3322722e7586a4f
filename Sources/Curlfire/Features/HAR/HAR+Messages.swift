import Foundation

extension HAR {
    /// A request as sent.
    public struct Request: Codable, Sendable, Equatable {
        /// The method (`GET`, `POST`, …).
        public var method: String
        /// The absolute URL, fragment removed.
        public var url: String
        /// The protocol version (`HTTP/1.1`, `HTTP/2`).
        public var httpVersion: String
        /// Cookies sent in the `Cookie` header.
        public var cookies: [Cookie]
        /// Header fields sent.
        public var headers: [NameValue]
        /// The URL's query, parsed.
        public var queryString: [NameValue]
        /// The body, when there was one.
        public var postData: PostData?
        /// Bytes of the request line and headers, `-1` when unknown.
        public var headersSize: Int
        /// Bytes of the body, `0` without one, `-1` when unknown.
        public var bodySize: Int

        /// Creates a request.
        public init(method: String, url: String, httpVersion: String, cookies: [Cookie] = [], headers: [NameValue],
                    queryString: [NameValue] = [], postData: PostData? = nil, headersSize: Int = -1, bodySize: Int = -1) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            self.headersSize = headersSize
            self.bodySize = bodySize
        }
    }

    /// A request body: its type and either its text or, for a URL-encoded form, its parameters.
    public struct PostData: Codable, Sendable, Equatable {
        /// The body's `Content-Type` (empty when none was sent).
        public var mimeType: String
        /// The body as text (base64 when ``encoding`` is `"base64"`); `nil` when ``params`` holds it.
        public var text: String?
        /// The parameters of an `application/x-www-form-urlencoded` body.
        public var params: [Param]?
        /// `"base64"` when ``text`` is a binary body in base64 (a custom field: `_encoding`).
        public var encoding: String?
        /// A free comment (Curlfire says here when a body was not recorded).
        public var comment: String?

        /// Creates a request body.
        public init(mimeType: String, text: String? = nil, params: [Param]? = nil, encoding: String? = nil,
                    comment: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.params = params
            self.encoding = encoding
            self.comment = comment
        }

        private enum CodingKeys: String, CodingKey {
            case mimeType, text, params, comment
            case encoding = "_encoding"
        }
    }

    /// A posted parameter.
    public struct Param: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its value.
        public var value: String?
        /// A posted file's name.
        public var fileName: String?
        /// A posted file's type.
        public var contentType: String?

        /// Creates a parameter.
        public init(name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil) {
            self.name = name
            self.value = value
            self.fileName = fileName
            self.contentType = contentType
        }
    }

    /// A response as received.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code; `0` when no response arrived.
        public var status: Int
        /// The status text.
        public var statusText: String
        /// The protocol version.
        public var httpVersion: String
        /// Cookies set by `Set-Cookie`.
        public var cookies: [Cookie]
        /// Header fields received.
        public var headers: [NameValue]
        /// The body, decoded (after `Content-Encoding`).
        public var content: Content
        /// The `Location` header's value, empty when there is none.
        public var redirectURL: String
        /// Bytes of the status line and headers, `-1` when unknown.
        public var headersSize: Int
        /// Bytes of the body as received (before decoding), `-1` when unknown.
        public var bodySize: Int

        /// Creates a response.
        public init(status: Int, statusText: String, httpVersion: String, cookies: [Cookie] = [],
                    headers: [NameValue], content: Content, redirectURL: String = "", headersSize: Int = -1,
                    bodySize: Int = -1) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = headersSize
            self.bodySize = bodySize
        }
    }

    /// A response body.
    public struct Content: Codable, Sendable, Equatable {
        /// Bytes of the decoded body (`0` when it is unknown, as for a redirect hop's body).
        public var size: Int
        /// Bytes saved by compression (`size` − bytes received), when known and positive.
        public var compression: Int?
        /// The `Content-Type` (empty when none).
        public var mimeType: String
        /// The body: text, or base64 when ``encoding`` is `"base64"`; `nil` when not recorded.
        public var text: String?
        /// `"base64"` for a binary body.
        public var encoding: String?
        /// A free comment (Curlfire says here when and why a body was not recorded).
        public var comment: String?

        /// Creates a response body.
        public init(size: Int, compression: Int? = nil, mimeType: String, text: String? = nil, encoding: String? = nil,
                    comment: String? = nil) {
            self.size = size
            self.compression = compression
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.comment = comment
        }

        /// The body's bytes: ``text`` decoded from base64 or as UTF-8; `nil` when not recorded or
        /// not valid base64.
        public var data: Data? {
            guard let text else { return nil }
            return encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
        }
    }

    /// How long each phase of an exchange took, in milliseconds; `-1` where a phase did not apply.
    ///
    /// As HAR defines them: `blocked` waiting for a connection, `dns`, `connect` (TCP **and**
    /// TLS: it includes `ssl`), `ssl`, `send`, `wait` (for the first response byte), `receive`.
    public struct Timings: Codable, Sendable, Equatable {
        /// Waiting in a queue for a connection.
        public var blocked: Double
        /// Resolving the host name.
        public var dns: Double
        /// Opening the connection, TLS handshake included.
        public var connect: Double
        /// Sending the request.
        public var send: Double
        /// Waiting for the first byte of the response.
        public var wait: Double
        /// Receiving the response.
        public var receive: Double
        /// The TLS handshake (also counted in ``connect``).
        public var ssl: Double

        /// Creates timings; the optional phases are `-1` by default.
        public init(blocked: Double = -1, dns: Double = -1, connect: Double = -1, send: Double, wait: Double,
                    receive: Double, ssl: Double = -1) {
            self.blocked = blocked
            self.dns = dns
            self.connect = connect
            self.send = send
            self.wait = wait
            self.receive = receive
            self.ssl = ssl
        }

        /// The entry's total time: the phases that apply, `ssl` not counted twice.
        public var total: Double {
            [blocked, dns, connect, send, wait, receive].filter { $0 > 0 }.reduce(0, +)
        }
    }
}
