import Foundation

/// An HTTP Archive (HAR 1.2): the JSON format browsers' developer tools export and HAR viewers
/// read, as written by ``HARRecorder`` and replayed by `CurlfireTesting`'s `MockServer`.
///
/// Field names and meanings follow the HAR 1.2 specification (W3C Web Performance working group
/// draft, "HTTP Archive (HAR) format"). Times inside ``Timings`` are milliseconds, `-1` where a
/// phase does not apply; sizes are bytes, `-1` where unknown. Optional fields are left out of the
/// JSON when `nil`. Decode a file with `JSONDecoder().decode(HAR.self, from: data)`.
public struct HAR: Codable, Sendable, Equatable {
    /// The archive's only top-level member.
    public var log: Log

    /// Creates an archive around `log`.
    public init(log: Log) { self.log = log }

    /// The archive: its format version, who wrote it, and the exchanges in the order they started.
    public struct Log: Codable, Sendable, Equatable {
        /// The format version, `"1.2"`.
        public var version: String
        /// The application that wrote the archive.
        public var creator: Creator
        /// One entry per HTTP exchange (every attempt and every redirect hop), oldest first.
        public var entries: [Entry]
        /// A free comment, `nil` by default.
        public var comment: String?

        /// Creates a log; `version` is `"1.2"` by default.
        public init(version: String = "1.2", creator: Creator, entries: [Entry], comment: String? = nil) {
            self.version = version
            self.creator = creator
            self.entries = entries
            self.comment = comment
        }
    }

    /// The application that wrote an archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String

        /// Creates a creator.
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }

        /// Curlfire itself, with `CurlfireVersion` as its version.
        public static var curlfire: Creator { Creator(name: "Curlfire", version: CurlfireVersion) }
    }

    /// One HTTP exchange: what was sent, what came back, and how long each phase took.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the exchange started, ISO 8601 with fractional seconds (`2026-11-26T09:00:00.123Z`).
        public var startedDateTime: String
        /// Milliseconds the exchange took: the sum of the ``Timings`` that apply.
        public var time: Double
        /// The request as sent.
        public var request: Request
        /// The response as received (status `0` when none arrived).
        public var response: Response
        /// What the cache did; Curlfire records an empty object.
        public var cache: Cache
        /// The exchange's phases.
        public var timings: Timings
        /// The IP address of the server the exchange talked to, when known.
        public var serverIPAddress: String?
        /// Identifies the TCP connection (Curlfire writes its local port): entries sharing a value
        /// shared a connection.
        public var connection: String?
        /// A free comment.
        public var comment: String?
        /// Why the exchange failed below HTTP, when it did (a custom field: custom names start with `_`).
        public var error: String?

        /// Creates an entry.
        public init(startedDateTime: String, time: Double, request: Request, response: Response,
                    cache: Cache = Cache(), timings: Timings, serverIPAddress: String? = nil,
                    connection: String? = nil, comment: String? = nil, error: String? = nil) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = cache
            self.timings = timings
            self.serverIPAddress = serverIPAddress
            self.connection = connection
            self.comment = comment
            self.error = error
        }

        private enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
            case error = "_error"
        }
    }

    /// A header, query parameter or other name–value pair.
    public struct NameValue: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A cookie sent (`Cookie`) or set (`Set-Cookie`).
    public struct Cookie: Codable, Sendable, Equatable {
        /// The cookie's name.
        public var name: String
        /// Its value (`"[redacted]"` unless the recorder keeps credentials).
        public var value: String
        /// The `Path` attribute.
        public var path: String?
        /// The `Domain` attribute.
        public var domain: String?
        /// The `Expires` attribute, as sent.
        public var expires: String?
        /// Whether `HttpOnly` was set.
        public var httpOnly: Bool?
        /// Whether `Secure` was set.
        public var secure: Bool?

        /// Creates a cookie.
        public init(name: String, value: String, path: String? = nil, domain: String? = nil,
                    expires: String? = nil, httpOnly: Bool? = nil, secure: Bool? = nil) {
            self.name = name
            self.value = value
            self.path = path
            self.domain = domain
            self.expires = expires
            self.httpOnly = httpOnly
            self.secure = secure
        }
    }

    /// What the cache held before and after the exchange; Curlfire records neither.
    public struct Cache: Codable, Sendable, Equatable {
        /// Free comment.
        public var comment: String?
        /// Creates an empty cache record.
        public init(comment: String? = nil) { self.comment = comment }
    }
}
