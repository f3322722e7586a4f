import Foundation

/// Hides secrets in the text Curlfire writes for people: `debugDescription`'s `curl` command,
/// descriptions of requests and responses, and ``LoggingEventMonitor``'s lines.
///
/// Secrets are the values of ``sensitiveHeaders`` and the password of a URL's user information
/// (`https://user:password@host/`); each becomes `***`. The user name stays.
enum CredentialRedaction {
    /// Header names (lowercased) whose values are secrets.
    static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie",
                                                "x-api-key"]

    /// Whether the header `name` carries a secret (compared without regard to case).
    static func isSensitive(header name: String) -> Bool { sensitiveHeaders.contains(name.lowercased()) }

    /// `url` as text, its password replaced by `***` (unchanged when it has none).
    static func text(of url: URL) -> String {
        guard url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.percentEncodedPassword = "***"
        return components.string ?? "<URL with credentials>"
    }

    /// `url` as text, redacted unless `redacted` is false; `placeholder` when there is none.
    static func text(of url: URL?, redacted: Bool = true, placeholder: String) -> String {
        guard let url else { return placeholder }
        return redacted ? text(of: url) : url.absoluteString
    }
}
