import Foundation
import FoundationNetworking

/// Decides what happens when a response redirects (301, 302, 303, 307, 308 with a `Location`).
///
/// Set one on ``SessionManager/redirectHandler`` or per request with `redirect(using:)`; the
/// request's own wins. Curlfire follows every redirect itself, one hop at a time, so each hop is
/// evaluated with the trust policy, trusted roots and client identity of its own host. Without a
/// handler, or with ``Redirector/follow``, each hop is followed at once; any other handler is
/// asked, off the engine thread, once per redirect, and the request it returns is sent. Hops are
/// counted against ``SessionConfiguration/maximumRedirects``. `Authorization` and `Cookie` headers
/// and `authenticate(user:password:)` credentials are never forwarded to a different origin
/// (scheme, host or port).
public protocol RedirectHandler: Sendable {
    /// Calls `completion` exactly once with the request to send next, or `nil` to stop and deliver
    /// the 3xx response as it is.
    ///
    /// - Parameters:
    ///   - request:    The request being redirected.
    ///   - redirect:   The request Curlfire would send: the `Location` resolved against the
    ///                 response's URL, the method changed to `GET` (body dropped) for 303 and for a
    ///                 `POST` answered by 301 or 302, kept with its body for 307 and 308, and
    ///                 cross-origin credentials removed.
    ///   - response:   The 3xx response.
    ///   - completion: Receives the request to send, or `nil`.
    func request(_ request: any Request, willBeRedirectedTo redirect: URLRequest, for response: HTTPURLResponse,
                 completion: @escaping @Sendable (URLRequest?) -> Void)
}

/// The usual ``RedirectHandler``s: follow, do not follow, or follow a modified request.
public struct Redirector: RedirectHandler {
    /// What a ``Redirector`` does with a redirect.
    public enum Behavior: Sendable {
        /// Follows the redirect (no per-hop callback).
        case follow
        /// Delivers the 3xx response as it is.
        case doNotFollow
        /// Follows the request the closure returns; `nil` delivers the 3xx response as it is.
        case modify(@Sendable (_ redirect: URLRequest, _ response: HTTPURLResponse) -> URLRequest?)
    }

    /// Follows every redirect. The default when no handler is set.
    public static let follow = Redirector(behavior: .follow)
    /// Follows no redirect: the 3xx response is delivered.
    public static let doNotFollow = Redirector(behavior: .doNotFollow)

    /// What this redirector does.
    public let behavior: Behavior

    /// Creates a redirector with `behavior`.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// Applies the behaviour.
    public func request(_ request: any Request, willBeRedirectedTo redirect: URLRequest, for response: HTTPURLResponse,
                        completion: @escaping @Sendable (URLRequest?) -> Void) {
        switch behavior {
        case .follow: completion(redirect)
        case .doNotFollow: completion(nil)
        case let .modify(closure): completion(closure(redirect, response))
        }
    }

    /// Whether hops are followed without asking (no hop needs to be seen).
    var followsNatively: Bool {
        if case .follow = behavior { return true } else { return false }
    }
}

extension Optional where Wrapped == any RedirectHandler {
    /// Whether hops are followed without asking a handler: no handler, or ``Redirector/follow``.
    var followsNatively: Bool {
        guard let handler = self else { return true }
        return (handler as? Redirector)?.followsNatively ?? false
    }
}

/// The rules for the next request of a redirect followed by hand (pure: unit-tested).
enum RedirectRules {
    /// Status codes that redirect.
    static let redirectCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// Headers never sent to another origin.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request to send after `response` redirected `request`, or `nil` when it is not a
    /// redirect (no `Location`, or a status that does not redirect). `keepsBody` tells whether the
    /// request body goes along (307/308).
    static func redirect(from request: URLRequest, response: HTTPURLResponse) -> (request: URLRequest, keepsBody: Bool)? {
        guard redirectCodes.contains(response.statusCode),
              let location = response.value(forHTTPHeaderField: "Location"),
              let base = response.url ?? request.url,
              let target = URL(string: location, relativeTo: base)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
                || (UnixSocketRoute.isUnixScheme(scheme) && target.host == base.host) // a relative redirect on the socket
        else { return nil }
        var next = request
        next.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        var keepsBody = true
        switch response.statusCode {
        case 303 where method != "HEAD", 301 where method == "POST", 302 where method == "POST":
            next.httpMethod = "GET"
            keepsBody = false
        default:
            break
        }
        if !keepsBody {
            next.httpBody = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if !sameOrigin(request.url, target) {
            for name in credentialHeaders { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return (next, keepsBody)
    }

    /// Removes from `request` the credential headers it still carries from `original` when it goes
    /// to another origin (a handler may have changed the URL).
    static func stripForwardedCredentials(_ request: URLRequest, original: URLRequest) -> URLRequest {
        guard !sameOrigin(original.url, request.url) else { return request }
        var request = request
        for name in credentialHeaders {
            if let value = request.value(forHTTPHeaderField: name), value == original.value(forHTTPHeaderField: name) {
                request.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return request
    }

    /// Whether two URLs share scheme, host and port (default ports filled in).
    static func sameOrigin(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        func origin(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(lhs) == origin(rhs)
    }
}
