import Foundation

/// How a request string resolves against ``SessionConfiguration/baseURL``, as
/// `AFHTTPSessionManager(baseURL:)` does (a pure function, unit-tested).
///
/// - An absolute URL (with a scheme and a host) ignores the base.
/// - A base whose path does not end with `/` is treated as a directory: `"users/7"` against
///   `https://api.example.com/v1` is `https://api.example.com/v1/users/7`.
/// - Otherwise RFC 3986 applies: `"/users"` replaces the base's path, `"../x"` climbs, `"?q=1"` keeps it.
enum BaseURLResolution {
    /// `reference` resolved against `base`; `nil` when the result is not an absolute URL with a host.
    static func resolve(_ reference: String, against base: URL) -> URL? {
        if let absolute = URL(string: reference), let scheme = absolute.scheme, !scheme.isEmpty {
            return (absolute.host.map { !$0.isEmpty } ?? false) ? absolute : nil
        }
        var directory = base.absoluteString
        if !base.path.isEmpty, !directory.hasSuffix("/"), base.query == nil, base.fragment == nil {
            directory += "/"
        }
        guard let directoryURL = URL(string: directory),
              let resolved = URL(string: reference, relativeTo: directoryURL)?.absoluteURL,
              resolved.host.map({ !$0.isEmpty }) ?? false
        else { return nil }
        return resolved
    }
}

extension SessionManager {
    /// `url` resolved against the configuration's ``SessionConfiguration/baseURL``: a `String`, or a
    /// `URL` without a scheme, is resolved; anything else (and everything when there is no base)
    /// is used as it is.
    func resolvingBaseURL(_ url: URLConvertible) throws -> URLConvertible {
        guard let base = configuration.baseURL else { return url }
        let reference: String
        switch url {
        case let string as String: reference = string
        case let plain as URL where plain.scheme == nil: reference = plain.relativeString
        default: return url
        }
        guard let resolved = BaseURLResolution.resolve(reference, against: base) else {
            throw CurlfireError.invalidURL(url: reference)
        }
        return resolved
    }
}
