import Foundation

/// Where a hop connects when it goes through a Unix domain socket instead of TCP: the session's
/// ``SessionConfiguration/unixSocketPath``, or the socket named in an `http+unix://` /
/// `https+unix://` URL (its host is the percent-encoded socket path, as AsyncHTTPClient takes it).
struct UnixSocketRoute: Sendable, Equatable {
    /// The socket's path, or for an abstract socket its name without the leading `@`.
    let path: String
    /// Whether it is a Linux abstract socket (named `@name`): `CURLOPT_ABSTRACT_UNIX_SOCKET`.
    let isAbstract: Bool
    /// The URL handed to libcurl when the request's own is an `http+unix`/`https+unix` URL:
    /// `http://localhost/…` or `https://localhost/…` with the same path and query; `nil` otherwise.
    let curlURL: String?

    /// A route to `socket`: a path, or `@name` for an abstract socket.
    init(socket: String, curlURL: String? = nil) {
        if socket.hasPrefix("@") {
            path = String(socket.dropFirst())
            isAbstract = true
        } else {
            path = socket
            isAbstract = false
        }
        self.curlURL = curlURL
    }

    /// Whether `scheme` (lowercased) is one of the Unix-socket schemes.
    static func isUnixScheme(_ scheme: String?) -> Bool { scheme == "http+unix" || scheme == "https+unix" }

    /// The route of a request: its URL's socket for an `http+unix`/`https+unix` URL (the session's
    /// setting does not apply to it), else the session's socket, else `nil` (TCP).
    static func route(for url: URL?, scheme: String?, sessionSocket: String?) -> UnixSocketRoute? {
        guard isUnixScheme(scheme) else { return sessionSocket.map { UnixSocketRoute(socket: $0) } }
        guard let url, let socket = url.host, !socket.isEmpty,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = scheme == "https+unix" ? "https" : "http"
        components.percentEncodedHost = "localhost"
        components.port = nil
        return UnixSocketRoute(socket: socket, curlURL: components.string)
    }

    /// Whether the socket name is usable: not empty, no NUL, and short enough for a Unix socket
    /// address (107 bytes for a path, 106 for an abstract name after its NUL).
    var isValid: Bool {
        let bytes = path.utf8
        return !bytes.isEmpty && !bytes.contains(0) && bytes.count <= (isAbstract ? 106 : 107)
    }
}
