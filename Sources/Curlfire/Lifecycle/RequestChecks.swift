import Foundation
import FoundationNetworking

/// Checks a request must pass before any byte is sent.
enum RequestChecks {
    /// Rejects header injection (CR, LF or NUL in a name or value of the request's headers, or the
    /// session's unsafe default header named by `unsafeDefaultHeader`, which each attempt would add),
    /// a URL libcurl cannot send, a `timeoutInterval` that is not positive and finite, and a body on
    /// a `GET` unless allowed.
    static func validate(_ request: URLRequest, body: UploadBody, allowsBodyInGET: Bool,
                         unsafeDefaultHeader: String? = nil) -> CurlfireError? {
        validate(.built(request), body: body, allowsBodyInGET: allowsBodyInGET, unsafeDefaultHeader: unsafeDefaultHeader)
    }

    /// ``validate(_:body:allowsBodyInGET:unsafeDefaultHeader:)`` for a request that may still be in its plain form.
    static func validate(_ request: LazyRequest, body: UploadBody, allowsBodyInGET: Bool,
                         unsafeDefaultHeader: String? = nil) -> CurlfireError? {
        guard let url = request.url else { return .invalidURL(url: "nil") }
        if let error = targetError(url) { return error }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if !HTTPHeader(name: name, value: value).isInjectionSafe { return .invalidHeader(name: name) }
        }
        if let unsafeDefaultHeader { return .invalidHeader(name: unsafeDefaultHeader) }
        if !RequestTimeLimits.isValid(request.timeoutInterval) {
            return .invalidTimeout(name: "timeoutInterval", value: request.timeoutInterval)
        }
        if request.httpMethod?.uppercased() ?? "GET" == "GET", !allowsBodyInGET, !body.isEmpty {
            return .bodyDataInGETRequest
        }
        return nil
    }

    /// Why `url` cannot be a request's target (not HTTP, HTTPS or a Unix socket, or no host), if it
    /// cannot. A URL the calling thread's last parse kept is checked once (ParsedURLCache.swift).
    private static func targetError(_ url: URL) -> CurlfireError? {
        if ParsedURLCache.passedTargetChecks(url) { return nil }
        guard let scheme = url.lowercasedScheme,
              scheme == "http" || scheme == "https" || UnixSocketRoute.isUnixScheme(scheme),
              let host = url.host, !host.isEmpty
        else { return .invalidURL(url: url.absoluteString) }
        if UnixSocketRoute.isUnixScheme(scheme), !UnixSocketRoute(socket: host).isValid {
            return .invalidURL(url: url.absoluteString) // no socket path, or one too long for an address
        }
        ParsedURLCache.notePassedTargetChecks(url)
        return nil
    }
}

extension HTTPHeaders {
    /// The name of the first header holding CR, LF or NUL (or an invalid name), if any.
    var firstUnsafeHeaderName: String? { first(where: { !$0.isInjectionSafe })?.name }
}
